import ArgumentParser
import FoundationEssentials
import Tessera

struct InfoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show what each image or video is and what decoding it would cost, without decoding it."
    )

    @Argument(help: "Image or video files.")
    var files: [String]

    @OptionGroup var output: JSONOption

    func run() async throws {
        let failures = FailureLog()
        var imageRows: [[String]] = []
        var levelRows: [[String]] = []
        var videoRows: [[String]] = []
        var mapRows: [[String]] = []
        let readers = TIFFReaderPool(readersPerFile: 1)
        for path in files {
            do {
                let (properties, levels, map) = try await Self.probe(path, readers: readers)
                if output.json {
                    printJSON(["path": .string(path)], InfoLine(properties: properties, source: levels, map: map))
                    continue
                }
                if let map { mapRows.append(Self.tableRow(path: path, map)) }
                switch properties {
                case .image(let image): imageRows.append(Self.tableRow(path: path, image))
                case .video(let video): videoRows.append(Self.tableRow(path: path, video))
                }
                if let levels { levelRows.append(Self.tableRow(path: path, levels)) }
            } catch {
                failures.report(path, error)
            }
        }
        if !imageRows.isEmpty {
            let header = ["FILE", "FORMAT", "SIZE", "ORIENT", "DISPLAY", "ALPHA", "BITS", "MODEL", "FRAMES", "PROG", "FILE SIZE", "DECODED"]
            print(TextTable(header: header, rows: imageRows, rightAligned: [6, 8, 10, 11]).rendered)
        }
        if !levelRows.isEmpty {
            print()
            print(
                TextTable(header: ["FILE", "KIND", "LEVELS (DOWNSAMPLE)", "TILE", "µm/px", "ASSOCIATED"], rows: levelRows, rightAligned: [4]).rendered
            )
        }
        if !mapRows.isEmpty {
            print()
            let header = ["FILE", "CRS", "BOUNDS (W, S, E, N °)", "PIXEL", "NODATA", "ZOOMS", "COG"]
            print(TextTable(header: header, rows: mapRows, rightAligned: []).rendered)
        }
        if !videoRows.isEmpty {
            if !imageRows.isEmpty { print() }
            let header = ["FILE", "CODEC", "SIZE", "DISPLAY", "DURATION", "FPS", "FRAMES", "KEYFRAMES", "AUDIO"]
            print(TextTable(header: header, rows: videoRows, rightAligned: [4, 5, 6, 7]).rendered)
        }
        try failures.exit()
    }

    /// `path`'s properties and, when a kind reads it natively (a slide, a pyramidal TIFF), its
    /// levels, and when it is georeferenced, its map: the kinds are asked first (a slide's missing
    /// tiles fail the codecs' probe); bytes that are no image are probed as a video.
    ///
    /// - Throws: for a file georeferenced in a way no map can be made of, what is wrong with it.
    static func probe(_ path: String, readers: TIFFReaderPool) async throws -> (MediaProperties, RegionSourceSummary?, MapSummary?) {
        do {
            switch try RegionSourceKinds.open(file: path, kinds: RegionSourceKinds.standard(readers: readers)) {
            case .native(let kind, let source):
                let map = try source.georeference().map { reference in
                    MapSummary(
                        try MapSource(levels: RegionLevels(source), georeference: reference),
                        directories: try? TIFFDirectorySummary.directories(ofFileAt: path, readsDataOffsets: true))
                }
                return (.image(source.properties), RegionSourceSummary(kind: kind, source: source), map)
            case .decoded(let properties): return (.image(properties), nil, nil)
            }
        } catch ImageDecodingError.unknownFormat {
            return (try await MediaProperties.probe(path: path), nil, nil)
        }
    }

    /// A `--json` line: the properties' keys, a native kind's `source`, a georeferenced file's `map`.
    struct InfoLine: Encodable {
        let properties: MediaProperties
        let source: RegionSourceSummary?
        let map: MapSummary?

        private enum Key: String, CodingKey { case source, map }

        func encode(to encoder: any Encoder) throws {
            try properties.encode(to: encoder)
            var container = encoder.container(keyedBy: Key.self)
            try container.encodeIfPresent(source, forKey: .source)
            try container.encodeIfPresent(map, forKey: .map)
        }
    }

    static func tableRow(path: String, _ map: MapSummary) -> [String] {
        let bounds = map.bounds.map { String(cFormat: "%.5f", $0) }.joined(separator: ", ")
        let pixel = map.pixelSize.map { String(cFormat: "%.6g", $0) }.joined(separator: "×")
        let cog = map.cloudOptimized.map { $0 ? "yes" : "no: " + (map.layoutProblems?.first ?? "") } ?? "–"
        return [path, map.crs, bounds, pixel, map.noData ?? "–", "\(map.minZoom)–\(map.maxZoom)", cog]
    }

    static func tableRow(path: String, _ levels: RegionSourceSummary) -> [String] {
        let sizes = levels.levels.map { "\($0.width)×\($0.height)" + ($0.downsample == 1 ? "" : " (\($0.downsample))") }
        let tile = levels.levels.first.flatMap { level in level.tileWidth.map { "\($0)×\(level.tileHeight ?? $0)" } } ?? "–"
        let associated = (levels.associatedImages ?? []).map { "\($0.name) \($0.width)×\($0.height)" }
        return [
            path, levels.vendor.map { "\(levels.kind) (\($0))" } ?? levels.kind, sizes.joined(separator: ", "), tile,
            levels.micronsPerPixel.map { String(cFormat: "%.4f", $0) } ?? "–", associated.isEmpty ? "–" : associated.joined(separator: ", "),
        ]
    }

    static func tableRow(path: String, _ video: VideoProperties) -> [String] {
        [
            path, video.codec, "\(video.width)×\(video.height)", "\(video.displayWidth)×\(video.displayHeight)",
            String(cFormat: "%.3f s", video.duration), String(cFormat: "%.3f", video.frameRate),
            video.frameCount.map(String.init) ?? "?", String(video.keyframeCount), video.hasAudio ? "yes" : "no",
        ]
    }

    /// The frame count, and for an animation how long one play lasts and how many plays there are.
    private static func framesCell(_ p: ImageProperties) -> String {
        guard let animation = p.animation else { return String(p.frameCount) }
        let plays = animation.loopCount == 0 ? "looping" : animation.loopCount == 1 ? "once" : "\(animation.loopCount) plays"
        return "\(p.frameCount) (" + String(cFormat: "%.2f s", animation.duration) + ", \(plays))"
    }

    static func tableRow(path: String, _ p: ImageProperties) -> [String] {
        [
            path, p.format.rawValue, p.size.description, String(p.orientation.rawValue), p.displaySize.description,
            p.hasAlpha ? "yes" : "no", String(p.bitsPerComponent), p.colorModel.rawValue, framesCell(p),
            p.isProgressive ? "yes" : "no", ByteCount.formatted(p.fileByteCount), ByteCount.formatted(p.decodedByteCount),
        ]
    }
}
