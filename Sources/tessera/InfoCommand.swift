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
        var videoRows: [[String]] = []
        for path in files {
            do {
                let properties = try await MediaProperties.probe(path: path)
                if output.json {
                    printJSON(["path": .string(path)], properties)
                    continue
                }
                switch properties {
                case .image(let image): imageRows.append(Self.tableRow(path: path, image))
                case .video(let video): videoRows.append(Self.tableRow(path: path, video))
                }
            } catch {
                failures.report(path, error)
            }
        }
        if !imageRows.isEmpty {
            let header = ["FILE", "FORMAT", "SIZE", "ORIENT", "DISPLAY", "ALPHA", "BITS", "MODEL", "FRAMES", "PROG", "FILE SIZE", "DECODED"]
            print(TextTable(header: header, rows: imageRows, rightAligned: [6, 8, 10, 11]).rendered)
        }
        if !videoRows.isEmpty {
            if !imageRows.isEmpty { print() }
            let header = ["FILE", "CODEC", "SIZE", "DISPLAY", "DURATION", "FPS", "FRAMES", "KEYFRAMES", "AUDIO"]
            print(TextTable(header: header, rows: videoRows, rightAligned: [4, 5, 6, 7]).rendered)
        }
        try failures.exit()
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
