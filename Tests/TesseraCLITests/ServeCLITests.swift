import Foundation
import Testing

/// `tessera serve` as a process: the official IIIF validator against it, and graceful shutdown.
@Suite("tessera serve", .serialized)
struct ServeCLITests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    /// The validator's venv, made by scripts/bootstrap.sh.
    static let validatorPython = repository.appendingPathComponent(".build/iiif-validator-venv/bin/python").path

    /// A running `tessera serve` on 127.0.0.1 and a free port, stopped by its PID.
    final class RunningServer {
        let process = Process()
        let port: Int
        private let output = Pipe()

        init(root: String, cache: String, extra: [String] = [], environment: [String: String] = [:]) throws {
            port = try Self.freePort()
            process.executableURL = CLI.executable
            process.arguments = ["serve", root, "--host", "127.0.0.1", "--port", String(port), "--cache-dir", cache] + extra
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            // The command prints one line once it listens.
            let line = output.fileHandleForReading.availableLine()
            guard line.contains("listening on http://127.0.0.1:\(port)/") else {
                process.terminate()
                throw ServeError(message: "tessera serve did not start: \(line)")
            }
        }

        /// SIGKILL: no chance to clean up.
        func killHard() {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }

        /// SIGTERM, then the exit status.
        func stop() -> Int32 {
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
            return process.terminationStatus
        }

        static func freePort() throws -> Int {
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(socket) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
            }
            guard bound else { throw ServeError(message: "no free port") }
            return Int(UInt16(bigEndian: address.sin_port))
        }
    }

    struct ServeError: Error { let message: String }

    static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.run()
        let text = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: text, as: UTF8.self))
    }

    /// A scratch directory with an empty `root` in it to serve.
    static func temporaryDirectory() throws -> String {
        let path = try CLI.scratchDirectory("serve-cli")
        try FileManager.default.createDirectory(atPath: path + "/root", withIntermediateDirectories: true)
        return path
    }

    /// On the PNG; on the same image as a lossless JPEG 2000 read in place (small sources are
    /// turned off so that every request goes through the codestream's levels and tiles); and as
    /// page 2 of a PDF (`tessera-validator;2`: a page identifier, the page rendered by poppler at
    /// 72 dpi, one pixel per point, from a lossless palette image).
    @Test(
        "the official IIIF validator passes every level-2 test and the optional ones Tessera offers",
        arguments: ["png", "jp2", "pdf page"])
    func officialValidator(format: String) throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The validator's own test image (from its own colour table), named without an extension:
        // it sends the identifier unescaped, and Tessera sniffs the format from the bytes.
        let image = directory + "/root/tessera-validator"
        let (made, madeOutput) = try Self.run(
            Self.validatorPython,
            [
                Self.repository.appendingPathComponent("scripts/iiif-validator-image.py").path, image, "png",
            ])
        #expect(made == 0, "\(madeOutput)")
        var extra: [String] = []
        if format == "jp2" {
            let converted = try CLI.run(["convert", image, directory + "/validator.jp2", "--lossless"])
            #expect(converted.status == 0, "\(converted.stderr)")
            try FileManager.default.removeItem(atPath: image)
            try FileManager.default.moveItem(atPath: directory + "/validator.jp2", toPath: image)
            extra = ["--small-source-pixels", "1"]
        }
        var identifier = "tessera-validator"
        if format == "pdf page" {
            let (wrote, output) = try Self.run(
                Self.validatorPython,
                [
                    "-c",
                    """
                    from PIL import Image
                    image = Image.open("\(image)").convert("RGB").quantize(256, dither=Image.Dither.NONE)
                    cover = Image.new("RGB", (300, 400), "white")
                    cover.save("\(image)", format="PDF", save_all=True, append_images=[image], resolution=72)
                    """,
                ])
            #expect(wrote == 0, "\(output)")
            identifier += ";2"
        }
        let server = try RunningServer(root: directory + "/root", cache: directory + "/cache", extra: extra)
        let (status, report) = try Self.run(
            Self.repository.appendingPathComponent("scripts/iiif-validate.sh").path,
            ["127.0.0.1:\(server.port)", "iiif/3", identifier],
            environment: ["IIIF_VALIDATOR_PYTHON": Self.validatorPython, "IIIF_VALIDATOR_SEED": "1"])
        #expect(server.stop() == 0)
        #expect(status == 0, "\(report)")
        #expect(report.contains("iiif-validator: 41 passed, 0 failed"), "\(report)")
    }

    /// Writes an RGB noise image of `width` × `height` pixels to `path` (PNG, or JPEG at quality 85,
    /// by its extension), with Pillow: large inputs are made at test time, not committed.
    static func makeNoiseImage(at path: String, width: Int, height: Int) throws {
        let options = path.hasSuffix(".jpg") ? ", quality=85" : ""
        let (status, output) = try run(
            validatorPython,
            [
                "-c",
                """
                from PIL import Image
                Image.effect_noise((\(width), \(height)), 60).convert("RGB").save("\(path)"\(options))
                """,
            ])
        guard status == 0 else { throw ServeError(message: "Pillow could not write \(path): \(output)") }
    }

    @Test("SIGTERM lets the request in flight finish, then exits 0")
    func gracefulShutdown() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Big enough that its first tile waits on a pyramid build.
        try Self.makeNoiseImage(at: directory + "/root/big.png", width: 5000, height: 4000)
        let server = try RunningServer(root: directory + "/root", cache: directory + "/cache")
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        curl.arguments = [
            "curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "60",
            "http://127.0.0.1:\(server.port)/iiif/3/big.png/0,0,512,512/512,512/0/default.jpg",
        ]
        let out = Pipe()
        curl.standardOutput = out
        try curl.run()
        Thread.sleep(forTimeInterval: 0.5)
        let exitStatus = server.stop()
        let code = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        curl.waitUntilExit()
        #expect(code == "200")
        #expect(exitStatus == 0)
        // Stopped means stopped: nothing listens any more.
        let after = try Self.run(
            "/usr/bin/env",
            [
                "curl", "-s", "-o", "/dev/null", "-w", "%{http_code}",
                "http://127.0.0.1:\(server.port)/health",
            ])
        #expect(after.1 == "000")
    }

    @Test("a server killed in the middle of a pyramid build leaves nothing served as complete; the next one cleans up and builds")
    func killedMidBuild() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Self.makeNoiseImage(at: directory + "/root/big.png", width: 5000, height: 4000)
        let cache = directory + "/cache"
        let tile = "/iiif/3/big.png/0,0,256,256/256,256/0/default.jpg"
        let server = try RunningServer(root: directory + "/root", cache: cache)
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        curl.arguments = ["curl", "-s", "-o", "/dev/null", "--max-time", "60", "http://127.0.0.1:\(server.port)\(tile)"]
        try curl.run()
        // Killed once the build has written tiles into its staging directory (bounded wait).
        func files(_ suffix: String) -> [String] {
            (FileManager.default.enumerator(atPath: cache)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(suffix) }
        }
        var polls = 0
        while !files(".jpg").contains(where: { $0.contains("/.tessera-") }), polls < 3000, files("iiif-256/info.json").isEmpty {
            Thread.sleep(forTimeInterval: 0.01)
            polls += 1
        }
        server.killHard()
        curl.waitUntilExit()
        let staged = files(".jpg").filter { $0.contains("/.tessera-") }
        #expect(!staged.isEmpty, "the build was not caught in the middle")
        #expect(files("iiif-256/info.json").isEmpty, "a killed build left a pyramid that looks complete")

        // The next server removes the leftovers at start and builds the pyramid whole when asked again.
        let next = try RunningServer(root: directory + "/root", cache: cache)
        #expect(files(".jpg").filter { $0.contains("/.tessera-") }.isEmpty)
        let (status, code) = try Self.run(
            "/usr/bin/env",
            [
                "curl", "-s", "-o", directory + "/tile.jpg", "-w", "%{http_code}",
                "http://127.0.0.1:\(next.port)\(tile)",
            ])
        #expect(status == 0 && code == "200")
        // The tile was answered from the source; the pyramid is built in the background (bounded wait).
        polls = 0
        while files("iiif-256/info.json").isEmpty, polls < 6000 {
            Thread.sleep(forTimeInterval: 0.01)
            polls += 1
        }
        #expect(files("iiif-256/info.json").count == 1)
        #expect(next.stop() == 0)
        let header = try Data(contentsOf: URL(fileURLWithPath: directory + "/tile.jpg")).prefix(3)
        #expect(header == Data([0xFF, 0xD8, 0xFF]))
    }

    @Test("a root that is not a directory is one line on stderr and a non-zero exit")
    func badRoot() throws {
        let result = try CLI.run(["serve", "/nonexistent/tessera-root", "--port", "0"])
        #expect(result.status != 0)
        #expect(result.stderr.split(separator: "\n").count == 1)
        let bad = try CLI.run(["serve", "/tmp", "--port", "70000"])
        #expect(bad.status == 64)
        // A base path is written into URLs and pages as is: only plain segments are taken.
        for path in ["images", "/a//b", "/a/../b", "/a b", "/<script>", "/%2e%2e"] {
            let refused = try CLI.run(["serve", "/tmp", "--port", "0", "--base-path", path])
            #expect(refused.status == 64, "\(path)")
            #expect(refused.stderr.contains("must be a path such as /images"), "\(path)")
        }
    }
}

extension FileHandle {
    /// Bytes up to the first newline (or the end), blocking.
    func availableLine() -> String {
        var bytes: [UInt8] = []
        while true {
            let chunk = readData(ofLength: 1)
            guard let byte = chunk.first, byte != UInt8(ascii: "\n") else { break }
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
