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

    /// The environment a child `tessera` runs in: this process's, except that under `make sanitize`
    /// with AddressSanitizer the child checks for leaks when it exits (a leak makes its exit status
    /// non-zero, which the tests see), while this test process does not (scripts/sanitize.sh says why).
    static var childEnvironment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        if environment["TESSERA_SANITIZER"] == "address" { environment["ASAN_OPTIONS"] = "detect_leaks=1" }
        return environment
    }

    /// A fresh directory named after `purpose`, for one test, removed afterwards by the caller.
    static func scratchDirectory(_ purpose: String) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-\(purpose)-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    /// ``scratchDirectory(_:)`` as a file URL.
    static func scratchURL(_ purpose: String) throws -> URL { URL(fileURLWithPath: try scratchDirectory(purpose)) }

    /// - Parameters:
    ///   - environment: variables added to ``childEnvironment``.
    ///   - input: what the child reads on standard input (nothing: it inherits this process's).
    static func run(_ arguments: [String], environment: [String: String] = [:], input: String? = nil) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = childEnvironment.merging(environment) { _, added in added }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let stdin = Pipe()
        if input != nil { process.standardInput = stdin }
        try process.run()
        if let input {
            stdin.fileHandleForWriting.write(Data(input.utf8))
            try stdin.fileHandleForWriting.close()
        }
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
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
        let keys = [
            "path", "format", "width", "height", "orientation", "displayWidth", "displayHeight", "hasAlpha",
            "bitsPerComponent", "colorModel", "frameCount", "progressive", "fileBytes", "decodedBytes",
        ]
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

    @Test("convert streams JPEG 2000 out: lossless reads back exactly, in tiles and levels made for serving")
    func convertToJPEG2000() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let lossless = directory + "/a.jp2", back = directory + "/back.png", original = directory + "/original.png"
        let result = try CLI.run(["convert", CLI.fixture("photo-400x300.png"), lossless, "--lossless"])
        #expect(result.status == 0, "\(result.stderr)")
        let info = try CLI.run(["info", "--json", lossless])
        #expect(info.stdout.contains("\"format\":\"jp2\"") && info.stdout.contains("\"isReversible\":true"), "\(info.stdout)")
        #expect(try CLI.run(["convert", lossless, back]).status == 0)
        #expect(try CLI.run(["convert", CLI.fixture("photo-400x300.png"), original]).status == 0)
        let decodedBack = try Data(contentsOf: URL(fileURLWithPath: back)), decodedOriginal = try Data(contentsOf: URL(fileURLWithPath: original))
        #expect(decodedBack == decodedOriginal, "a lossless round trip changed pixels")
        // Lossy, as a raw codestream; the flags that do not apply are refused.
        let lossy = directory + "/a.j2k"
        #expect(try CLI.run(["convert", CLI.fixture("photo-400x300.png"), lossy, "--quality", "60"]).status == 0)
        #expect(try CLI.run(["info", "--json", lossy]).stdout.contains("\"format\":\"j2k\""))
        let refused = try CLI.run(["convert", CLI.fixture("photo-400x300.png"), directory + "/a.png", "--lossless"])
        #expect(refused.status == 64 && refused.stderr.contains("--lossless applies to JPEG 2000 and JPEG XL"), "\(refused.stderr)")
    }

    @Test("convert writes AVIF, HEIC and palette PNG; thumbnail --format avif and --palette into a directory")
    func newOutputFormats() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for (name, arguments, format) in [
            ("a.avif", ["--quality", "40", "--speed", "8"], "avif"), ("a.heic", [], "heic"), ("a.png", ["--palette", "--dither", "0"], "png"),
        ] {
            let output = directory + "/" + name
            let result = try CLI.run(["convert", CLI.fixture("photo-400x300.png"), output] + arguments)
            #expect(result.status == 0, "\(result.stderr)")
            let info = try CLI.run(["info", "--json", output])
            #expect(info.stdout.contains("\"format\":\"\(format)\"") && info.stdout.contains("\"width\":400"), "\(info.stdout)")
            if format == "png" { #expect(info.stdout.contains("\"colorModel\":\"palette\"")) }
        }
        let thumbnails = try CLI.run([
            "thumbnail", CLI.fixture("photo-400x300.png"), CLI.fixture("heic-basic.heic"), "--max-pixel-size", "64",
            "--format", "avif", "--output-dir", directory + "/avif",
        ])
        #expect(thumbnails.status == 0, "\(thumbnails.stderr)")
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: directory + "/avif")) == ["photo-400x300.avif", "heic-basic.avif"])
        let palettes = try CLI.run([
            "thumbnail", CLI.fixture("jpeg-baseline.jpg"), "--max-pixel-size", "32", "--palette", "--output-dir", directory + "/p",
        ])
        #expect(palettes.status == 0, "\(palettes.stderr)")
        #expect(try CLI.run(["info", "--json", directory + "/p/jpeg-baseline.png"]).stdout.contains("\"colorModel\":\"palette\""))
    }

    @Test("PDF: info gives the page count and size in points, --page picks the page, a missing page is not found")
    func pdfPages() throws {
        let pdf = CLI.fixture("pdf/two-pages.pdf")
        let info = try CLI.run(["info", "--json", pdf])
        for key in ["\"format\":\"pdf\"", "\"pageCount\":2", "\"pageWidth\":612", "\"pageHeight\":792"] {
            #expect(info.stdout.contains(key), "\(info.stdout)")
        }
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-\(UUID()).png").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let second = try CLI.run(["thumbnail", pdf, "--page", "2", "--max-pixel-size", "150", "--output", output])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(try CLI.run(["info", "--json", output]).stdout.contains("\"width\":150"))
        let missing = try CLI.run(["convert", pdf, output, "--page", "3"])
        #expect(missing.status == 66 && missing.stderr.contains("there is no page 3"), "\(missing.stderr)")
        #expect(try CLI.run(["convert", pdf, output, "--page", "0"]).status == 64)
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

    @Test("tile into an output that is a file, or to s3:// without credentials: one line, I/O (74) and bad input (65)")
    func tileOutputFailures() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-\(UUID())").path
        #expect(FileManager.default.createFile(atPath: file, contents: Data()))
        defer { try? FileManager.default.removeItem(atPath: file) }
        let onFile = try CLI.run(["tile", CLI.fixture("photo-400x300.png"), "--output", file])
        #expect(onFile.status == 74, "a file system error is I/O, not internal: \(onFile.stderr)")
        let unsigned = try CLI.run(["tile", CLI.fixture("photo-400x300.png"), "--output", "s3://tiles/x"], environment: ["AWS_ACCESS_KEY_ID": ""])
        #expect(unsigned.status == 65 && unsigned.stderr.contains("AWS_ACCESS_KEY_ID"), "\(unsigned.stderr)")
    }
}

#if canImport(Glibc)
    import Glibc

    extension CLI {
        /// Runs the executable with stdout discarded and returns its exit status, its stderr and its
        /// peak resident memory in bytes: the high-water mark of its own address space (VmHWM), read
        /// until it exits. Not wait4's ru_maxrss: exec records the parent's peak there too (the old
        /// address space the spawn shared or copied), so a child of this large test process would
        /// report the test process's own peak.
        static func measure(_ arguments: [String]) throws -> (status: Int32, stderr: String, peakResidentBytes: Int) {
            let errors = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-stderr-\(UUID())").path
            defer { try? FileManager.default.removeItem(atPath: errors) }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
            defer { argv.forEach { free($0) } }
            let envp = childEnvironment.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { envp.forEach { free($0) } }
            var pid: pid_t = 0
            let spawned = posix_spawn(&pid, executable.path, &actions, nil, argv, envp)
            guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
            var status: Int32 = 0
            var peak = 0
            while true {
                let waited = waitpid(pid, &status, WNOHANG)
                if waited == pid { break }
                if waited == -1 && errno != EINTR { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
                peak = max(peak, highWaterResidentBytes(of: pid) ?? 0)
                usleep(2_000)
            }
            // A process killed by a signal reports it in the low 7 bits; as 128 + signal, as shells do.
            let exitStatus = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
            return (exitStatus, (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "", peak)
        }

        /// Expects a run ``measure(_:)`` watched to have peaked above nothing and under `limit` bytes
        /// resident. Not under `make sanitize`, whose shadow memory and quarantine multiply it.
        static func expectResident(
            _ bytes: Int, under limit: Int = 64 << 20, _ context: String = "",
            sourceLocation: SourceLocation = #_sourceLocation
        ) {
            guard ProcessInfo.processInfo.environment["TESSERA_SANITIZER"] == nil else { return }
            #expect(bytes > 0 && bytes < limit, "\(context): \(bytes >> 20) MiB", sourceLocation: sourceLocation)
        }

        /// VmHWM from /proc/PID/status, in bytes; nil once the process has gone.
        private static func highWaterResidentBytes(of pid: pid_t) -> Int? {
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
                let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
            else { return nil }
            return kilobytes * 1024
        }
    }

    @Suite("Thumbnail command")
    struct ThumbnailCLITests {
        @Test("a batch with broken files: the good ones come out, each bad one gets a line, exit non-zero")
        func batch() throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-\(UUID())").path
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let result = try CLI.run([
                "thumbnail", CLI.fixture("jpeg-baseline.jpg"), CLI.fixture("broken-truncated.png"),
                CLI.fixture("heic-basic.heic"), CLI.fixture("broken-random.jpg"), CLI.fixture("svg-size.svg"),
                "--max-pixel-size", "32", "--output-dir", directory, "--json", "--jobs", "2",
            ])
            #expect(result.status != 0)
            let lines = result.stdout.split(separator: "\n").map {
                try! JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
            }
            #expect(lines.count == 5)
            let failed = lines.filter { $0["error"] != nil }.compactMap { $0["input"] as? String }
            #expect(failed.count == 2 && failed.allSatisfy { $0.contains("broken-") })
            let made = lines.filter { $0["output"] != nil }
            #expect(made.count == 3)
            for line in made {
                #expect(FileManager.default.fileExists(atPath: line["output"] as! String))
                #expect(max(line["width"] as! Int, line["height"] as! Int) == 32)
                let keys: Set = [
                    "input", "output", "sourceWidth", "sourceHeight", "width", "height", "decodeScale",
                    "decodedBytes", "ms",
                ]
                #expect(Set(line.keys) == keys)
            }
            #expect(
                Set(try FileManager.default.contentsOfDirectory(atPath: directory))
                    == ["jpeg-baseline.jpg", "heic-basic.jpg", "svg-size.png"])
            #expect(result.stderr.split(separator: "\n").count == 2)
        }
    }
#endif
