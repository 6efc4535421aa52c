import ArgumentParser
import FoundationEssentials
import Tessera
import TesseraIIIF

struct TileCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tile",
        abstract: "Cut an image into a tile pyramid (Deep Zoom, IIIF level 0, XYZ or THTiledImageView), streaming rows.",
        discussion: "A GeoTIFF or COG with --layout xyz is cut into georeferenced Web Mercator tiles over its zooms, with a tilejson.json."
    )

    enum Layout: String, ExpressibleByArgument, CaseIterable { case dzi, iiif, xyz, th }

    @Argument(help: "The image to tile: a file, or s3://BUCKET/KEY (read in ranges).")
    var input: String

    @Option(help: "dzi, iiif, xyz or th.")
    var layout: Layout = .dzi

    @Option(
        help: ArgumentHelp(
            "The directory to write into, or s3://BUCKET/PREFIX.",
            discussion:
                "For s3://, credentials, region and endpoint come from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION and AWS_ENDPOINT_URL."))
    var output: String

    @Option(help: "Files uploaded at once to an s3:// output, 1–64.", transform: Parse.integer(1, 64))
    var uploads = 8

    @Option(help: "The pyramid's name (default: the input's name without extension).")
    var name: String?

    @Option(
        help: "Tile size in pixels, 1–8192 (default: 254 for dzi, 512 for iiif, 256 for xyz and th).",
        transform: Parse.integer(1, 8192))
    var tileSize: Int?

    @Option(help: "Overlap in pixels, 0–64 (dzi only; default 1).", transform: Parse.integer(0, 64))
    var overlap: Int?

    @Option(help: "Tile format: jpeg, png, webp, avif, heic, jp2 or jxl.", transform: Parse.formatName)
    var format = "jpeg"

    @Option(help: "JPEG, WebP, AVIF, HEIC, JPEG 2000 or JPEG XL quality, 1–100 (default 75, libvips' default).", transform: Parse.quality)
    var quality = 75

    @Option(help: "IIIF: the base URL of the service; `id` is BASE/NAME.", transform: Parse.httpURL)
    var baseURL: String?

    @OptionGroup var jobs: JobsOption
    @OptionGroup var color: ColorOption

    @Flag(help: "Print {\"bytes\", \"layout\", \"levels\", \"ms\", \"tiles\"} as JSON.")
    var json = false

    func validate() throws {
        if overlap != nil && layout != .dzi { throw ValidationError("--overlap applies to --layout dzi only") }
        if let tileSize, let overlap, overlap * 2 >= tileSize { throw ValidationError("--overlap must be less than half of --tile-size") }
    }

    func run() async throws {
        let pyramidLayout: PyramidLayout =
            switch layout {
            case .dzi: .deepZoom(tileSize: tileSize ?? 254, overlap: overlap ?? 1)
            case .iiif: .iiif(tileSize: tileSize ?? 512, baseURL: baseURL)
            case .xyz: .xyz(tileSize: tileSize ?? 256)
            case .th: .thTiled(tileSize: tileSize ?? 256)
            }
        let pyramidName = name ?? URL(fileURLWithPath: input).deletingPathExtension().lastPathComponent
        let options = PyramidOptions(
            layout: pyramidLayout, encoding: EncodingFormat(formatName: format, quality: quality)!, jobs: jobs.jobs,
            colorManagement: color.management)
        let bar = ProgressBar(total: 1000, enabled: standardErrorIsTerminal)
        let progress = WorkProgress { fraction in bar.show(fraction: fraction) }
        let failures = FailureLog()
        let start = ContinuousClock.now
        do {
            let environment = ProcessInfo.processInfo.environment
            let source: ImageSource
            if S3Configuration.isS3Location(input) {
                let (configuration, key) = try S3Configuration.object(location: input, environment: environment)
                source = .ranged(try await ObjectByteRange(store: S3ObjectStore(configuration), key: key))
            } else {
                source = .file(input)
            }
            let summary: PyramidSummary
            if layout == .xyz, let map = try Self.map(input) {
                // A GeoTIFF: the web map's tiles in Web Mercator, as `tessera serve` gives them.
                guard !S3Configuration.isS3Location(output), [256, 512].contains(tileSize ?? 256) else {
                    throw ValidationError("a map's XYZ tiles are written to a directory, 256 or 512 px")
                }
                summary = try await MapTileExport.write(
                    map, to: output, name: pyramidName, side: tileSize ?? 256, encoding: options.encoding, jobs: jobs.jobs, progress: progress)
            } else if S3Configuration.isS3Location(output) {
                let store = try S3ObjectStore(S3Configuration(location: output, environment: environment))
                summary = try await PyramidBuilder.build(
                    source, name: pyramidName, store: store, prefix: "", options: options, uploadConcurrency: uploads,
                    progress: progress)
            } else {
                summary = try await PyramidBuilder.build(
                    source, name: pyramidName, outputDirectory: output, options: options, progress: progress)
            }
            bar.finish()
            let milliseconds = (ContinuousClock.now - start).milliseconds
            if json {
                printJSON([:], summary, ["ms": .double(milliseconds)])
            } else {
                print(
                    "\(input) → \(output)/\(pyramidName) (\(summary.layout)): \(summary.imageSize), "
                        + "\(summary.levels) levels, \(summary.tiles) tiles, \(ByteCount.formatted(summary.bytes)) "
                        + "in \(String(cFormat: "%.1f", milliseconds / 1000)) s")
            }
        } catch {
            bar.finish()
            failures.report(input, error)
        }
        try failures.exit()
    }

    /// The map `input` is when it is a georeferenced file a kind reads natively (a GeoTIFF, a COG);
    /// nil for anything else.
    static func map(_ input: String) throws -> MapSource? {
        guard !S3Configuration.isS3Location(input),
            case .native(_, let source) = try RegionSourceKinds.open(
                file: input, kinds: RegionSourceKinds.standard(readers: TIFFReaderPool(readersPerFile: 1))),
            let reference = try source.georeference()
        else { return nil }
        return try MapSource(levels: RegionLevels(source), georeference: reference)
    }
}
