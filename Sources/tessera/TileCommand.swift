import ArgumentParser
import Foundation
import Tessera

struct TileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tile",
        abstract: "Cut an image into a tile pyramid (Deep Zoom, IIIF level 0, XYZ or THTiledImageView), streaming rows."
    )

    enum Layout: String, ExpressibleByArgument, CaseIterable { case dzi, iiif, xyz, th }

    @Argument(help: "The image to tile.")
    var input: String

    @Option(help: "dzi, iiif, xyz or th.")
    var layout: Layout = .dzi

    @Option(help: "The directory to write into.")
    var output: String

    @Option(help: "The pyramid's name (default: the input's name without extension).")
    var name: String?

    @Option(help: "Tile size in pixels (default: 254 for dzi, 512 for iiif, 256 for xyz and th).")
    var tileSize: Int?

    @Option(help: "Overlap in pixels (dzi only; default 1).")
    var overlap: Int?

    @Option(help: "Tile format: jpeg, png or webp.")
    var format = "jpeg"

    @Option(help: "JPEG or WebP quality (default 75, libvips' default).")
    var quality = 75

    @Option(help: "IIIF: the base URL of the service; `id` is BASE/NAME.")
    var baseURL: String?

    @Option(help: "Threads encoding tiles (default: active cores).")
    var jobs = ProcessInfo.processInfo.activeProcessorCount

    @Flag(help: "Print {\"layout\", \"levels\", \"tiles\", \"bytes\", \"ms\"} as JSON.")
    var json = false

    func validate() throws {
        if let tileSize, tileSize < 1 { throw ValidationError("--tile-size must be at least 1") }
        if let overlap, overlap < 0 || layout != .dzi { throw ValidationError("--overlap applies to dzi only, and is ≥ 0") }
        if ImageEncoding(fileExtension: format == "jpeg" ? "jpg" : format) == nil {
            throw ValidationError("--format must be jpeg, png or webp")
        }
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1") }
    }

    func run() throws {
        let pyramidLayout: PyramidLayout = switch layout {
        case .dzi: .deepZoom(tileSize: tileSize ?? 254, overlap: overlap ?? 1)
        case .iiif: .iiif(tileSize: tileSize ?? 512, baseURL: baseURL)
        case .xyz: .xyz(tileSize: tileSize ?? 256)
        case .th: .thTiled(tileSize: tileSize ?? 256)
        }
        let encoding = ImageEncoding(fileExtension: format == "jpeg" ? "jpg" : format, quality: quality)!
        let pyramidName = name ?? URL(fileURLWithPath: input).deletingPathExtension().lastPathComponent
        let options = PyramidOptions(layout: pyramidLayout, encoding: encoding, jobs: jobs)
        let bar = ProgressBar(total: 1000, enabled: isatty(STDERR_FILENO) != 0)
        let start = ContinuousClock.now
        do {
            let summary = try PyramidBuilder.build(
                .file(input), name: pyramidName, outputDirectory: output, options: options,
                progress: { fraction in bar.show(fraction: fraction) })
            bar.finish()
            let milliseconds = (ContinuousClock.now - start).milliseconds
            if json {
                print(JSONLine([
                    ("layout", .string(pyramidLayout.name)), ("levels", .int(summary.levels)),
                    ("tiles", .int(summary.tiles)), ("bytes", .int(summary.bytes)), ("ms", .double(milliseconds)),
                ]).rendered)
            } else {
                print("\(input) → \(output)/\(pyramidName) (\(pyramidLayout.name)): \(summary.imageSize), "
                    + "\(summary.levels) levels, \(summary.tiles) tiles, \(ByteCount.formatted(summary.bytes)) "
                    + "in \(String(format: "%.1f", milliseconds / 1000)) s")
            }
        } catch {
            bar.finish()
            reportFailure(input, error)
            throw ExitCode.failure
        }
    }
}
