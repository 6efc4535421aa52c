import ArgumentParser
import Foundation
import Tessera

struct InfoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show what each image or video is and what decoding it would cost, without decoding it."
    )

    @Argument(help: "Image or video files.")
    var files: [String]

    @Flag(help: "One JSON object per line instead of a table.")
    var json = false

    func run() async throws {
        let decoder = ImageDecoder()
        var rows: [[String]] = []
        var videoRows: [[String]] = []
        var failures = 0
        for path in files {
            do {
                let properties = try decoder.probe(.file(path))
                if json {
                    print(Self.jsonLine(path: path, properties))
                } else {
                    rows.append(Self.tableRow(path: path, properties))
                }
            } catch ImageDecodingError.unknownFormat {
                // Not an image: perhaps a video (ffmpeg's libraries are loaded only now).
                do {
                    let asset = try await VideoAsset.load(path: path)
                    if json { print(Self.jsonLine(path: path, asset)) } else { videoRows.append(Self.tableRow(path: path, asset)) }
                } catch VideoError.notAVideo {
                    failures += 1
                    reportFailure(path, "neither an image nor a video Tessera reads")
                } catch {
                    failures += 1
                    reportFailure(path, error)
                }
            } catch {
                failures += 1
                reportFailure(path, error)
            }
        }
        if !json && !rows.isEmpty {
            let header = ["FILE", "FORMAT", "SIZE", "ORIENT", "DISPLAY", "ALPHA", "BITS", "MODEL", "FRAMES", "PROG", "FILE SIZE", "DECODED"]
            print(TextTable(header: header, rows: rows, rightAligned: [6, 8, 10, 11]).rendered)
        }
        if !json && !videoRows.isEmpty {
            if !rows.isEmpty { print() }
            let header = ["FILE", "CODEC", "SIZE", "DISPLAY", "DURATION", "FPS", "FRAMES", "KEYFRAMES", "AUDIO"]
            print(TextTable(header: header, rows: videoRows, rightAligned: [4, 5, 6, 7]).rendered)
        }
        if failures > 0 { throw ExitCode.failure }
    }

    static func jsonLine(path: String, _ asset: VideoAsset) -> String {
        JSONLine([
            ("path", .string(path)), ("format", .string("video")), ("codec", .string(asset.codec)),
            ("width", .int(asset.pixelSize.width)), ("height", .int(asset.pixelSize.height)),
            ("clockwiseRotation", .int(asset.clockwiseQuarterTurns * 90)),
            ("displayWidth", .int(asset.displaySize.width)), ("displayHeight", .int(asset.displaySize.height)),
            ("duration", .double(asset.duration)), ("frameRate", .double(asset.frameRate)),
            ("frameCount", asset.frameCount.map { .int($0) } ?? .null), ("keyframeCount", .int(asset.keyframeTimes.count)),
            ("hasAudio", .bool(asset.hasAudio)), ("frameBytes", .int(asset.displaySize.byteCount(in: .rgba8))),
        ]).rendered
    }

    static func tableRow(path: String, _ asset: VideoAsset) -> [String] {
        [
            path, asset.codec, asset.pixelSize.description, asset.displaySize.description,
            String(format: "%.3f s", asset.duration), String(format: "%.3f", asset.frameRate),
            asset.frameCount.map(String.init) ?? "?", String(asset.keyframeTimes.count), asset.hasAudio ? "yes" : "no",
        ]
    }

    static func jsonLine(path: String, _ p: ImageProperties) -> String {
        JSONLine([
            ("path", .string(path)), ("format", .string(p.format.rawValue)),
            ("width", .int(p.size.width)), ("height", .int(p.size.height)),
            ("orientation", .int(p.orientation.rawValue)),
            ("displayWidth", .int(p.displaySize.width)), ("displayHeight", .int(p.displaySize.height)),
            ("hasAlpha", .bool(p.hasAlpha)), ("bitsPerComponent", .int(p.bitsPerComponent)),
            ("colorModel", .string(p.colorModel.rawValue)), ("frameCount", .int(p.frameCount)),
            ("progressive", .bool(p.isProgressive)), ("fileBytes", .int(p.fileByteCount)),
            ("decodedBytes", .int(p.decodedByteCount)),
        ]).rendered
    }

    static func tableRow(path: String, _ p: ImageProperties) -> [String] {
        [
            path, p.format.rawValue, p.size.description, String(p.orientation.rawValue), p.displaySize.description,
            p.hasAlpha ? "yes" : "no", String(p.bitsPerComponent), p.colorModel.rawValue, String(p.frameCount),
            p.isProgressive ? "yes" : "no", ByteCount.formatted(p.fileByteCount), ByteCount.formatted(p.decodedByteCount),
        ]
    }
}
