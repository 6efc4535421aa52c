import Foundation
import Testing

/// Runs the built `tessera` executable as a user would.
enum CLI {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func fixture(_ name: String) -> String { fixtures.appendingPathComponent(name).path }

    /// The executable sits next to the test bundle in the build directory.
    static let executable: URL = {
        var directory = Bundle.main.bundleURL
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("tessera").path),
            directory.path != "/"
        {
            directory.deleteLastPathComponent()
        }
        return directory.appendingPathComponent("tessera")
    }()

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func run(_ arguments: [String]) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                      stderr: String(decoding: stderr, as: UTF8.self))
    }
}

@Suite("The tessera command line")
struct CLITests {
    @Test("info --json prints one object per good file and one stderr line per bad one, exiting non-zero")
    func infoBatch() throws {
        let result = try CLI.run([
            "info", "--json", CLI.fixture("jpeg-orientation-6.jpg"), CLI.fixture("broken-random.jpg"),
            CLI.fixture("webp-animated.webp"), CLI.fixture("broken-empty.png"),
        ])
        #expect(result.status != 0)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        let first = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as! [String: Any]
        #expect(first["format"] as? String == "jpeg")
        #expect(first["width"] as? Int == 32 && first["height"] as? Int == 48)
        #expect(first["orientation"] as? Int == 6)
        #expect(first["displayWidth"] as? Int == 48 && first["displayHeight"] as? Int == 32)
        #expect(first["decodedBytes"] as? Int == 32 * 48 * 3)
        let keys = ["path", "format", "width", "height", "orientation", "displayWidth", "displayHeight", "hasAlpha",
                    "bitsPerComponent", "colorModel", "frameCount", "progressive", "fileBytes", "decodedBytes"]
        #expect(Set(first.keys) == Set(keys))
        let second = try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as! [String: Any]
        #expect(second["frameCount"] as? Int == 3)
        let errors = result.stderr.split(separator: "\n")
        #expect(errors.count == 2)
        #expect(errors[0].contains("broken-random.jpg") && errors[1].contains("broken-empty.png"))
    }

    @Test("info with every file good exits zero and prints a table")
    func infoTable() throws {
        let result = try CLI.run(["info", CLI.fixture("png-rgb-8.png"), CLI.fixture("heic-basic.heic")])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        #expect(result.stdout.contains("FORMAT") && result.stdout.contains("heic") && result.stdout.contains("64×48"))
    }

    @Test("convert writes the format the extension names, upright on request")
    func convert() throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-\(UUID()).png").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let result = try CLI.run(["convert", CLI.fixture("jpeg-orientation-6.jpg"), output, "--auto-orient"])
        #expect(result.status == 0, "\(result.stderr)")
        let info = try CLI.run(["info", "--json", output])
        #expect(info.stdout.contains("\"format\":\"png\"") && info.stdout.contains("\"width\":48"))
    }

    @Test("convert of a broken or oversized file: one line naming it, non-zero exit, no output file")
    func convertFailure() throws {
        for name in ["broken-truncated.jpg", "bomb-40000.png", "broken-corrupt-idat.png"] {
            let output = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-\(UUID()).png").path
            let result = try CLI.run(["convert", CLI.fixture(name), output])
            #expect(result.status != 0)
            #expect(result.stderr.split(separator: "\n").count == 1)
            #expect(result.stderr.contains(name))
            #expect(!FileManager.default.fileExists(atPath: output))
        }
    }
}
