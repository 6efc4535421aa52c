import ArgumentParser
import Foundation
import Tessera

struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show what each image is and what decoding it would cost, without decoding it."
    )

    @Argument(help: "Image files.")
    var files: [String]

    @Flag(help: "One JSON object per line instead of a table.")
    var json = false

    func run() throws {
        let decoder = ImageDecoder()
        var rows: [[String]] = []
        var failures = 0
        for path in files {
            do {
                let properties = try decoder.probe(.file(path))
                if json {
                    print(Self.jsonLine(path: path, properties))
                } else {
                    rows.append(Self.tableRow(path: path, properties))
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
        if failures > 0 { throw ExitCode.failure }
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
