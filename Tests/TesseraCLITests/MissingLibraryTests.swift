import Foundation
import Testing

/// libheif, libtiff, librsvg and ffmpeg's libraries are loaded on first use. When one is not
/// installed, the files that need it fail with a one-line error saying what to install, and
/// everything else in the batch goes on. The dynamic loader is made to not find them with an
/// LD_AUDIT module (Tests/NativeHelpers/hide-libraries.c), compiled here with the toolchain's clang.
@Suite("Missing system libraries")
struct MissingLibraryTests {
    private static func auditModule(in directory: URL) throws -> String {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("NativeHelpers/hide-libraries.c")
        let module = directory.appendingPathComponent("hide-libraries.so")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["clang", "-shared", "-fPIC", "-o", module.path, source.path]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "clang could not build the audit module")
        return module.path
    }

    /// A new scratch directory, and the environment that hides the libraries whose names start
    /// with any of `prefixes` (`:`-separated) from the dynamic loader.
    private static func hiding(_ prefixes: String) throws -> (directory: URL, environment: [String: String]) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-missing-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return (directory, ["LD_AUDIT": try auditModule(in: directory), "TESSERA_HIDE_LIBRARIES": prefixes])
    }

    @Test("images needing libheif, libtiff, librsvg, libopenjp2 or libjxl fail one line each, naming what to install; the rest of the batch is made")
    func imageLibraries() throws {
        let (directory, environment) = try Self.hiding("libheif.so.:libtiff.so.:librsvg-2.so.:libopenjp2.so.:libjxl.so.")
        defer { try? FileManager.default.removeItem(at: directory) }
        let outputs = directory.appendingPathComponent("out")
        let inputs = [
            "heic-basic.heic", "tiff-rgb-lzw.tif", "svg-size.svg", "jpeg2000/lossless-rgb.jp2", "jpegxl/lossy.jxl", "jpeg-orientation-6.jpg",
        ]
        let result = try CLI.run(
            ["thumbnail"] + inputs.map(CLI.fixture) + ["--max-pixel-size", "16", "--output-dir", outputs.path],
            environment: environment)
        #expect(result.status != 0)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 5, "\(result.stderr)")
        for (file, library) in [
            ("heic-basic.heic", "libheif"), ("tiff-rgb-lzw.tif", "libtiff"), ("svg-size.svg", "librsvg"), ("lossless-rgb.jp2", "libopenjp2"),
            ("lossy.jxl", "libjxl"),
        ] {
            #expect(lines.contains { $0.contains(file) && $0.contains("cannot load \(library)") && $0.contains("install") }, "\(file)")
        }
        let written = try FileManager.default.contentsOfDirectory(atPath: outputs.path)
        #expect(written.count == 1 && written[0].hasPrefix("jpeg-orientation-6"))
    }

    @Test("palette PNG output fails one line naming libimagequant once, when it is missing; full-colour PNG still works")
    func paletteLibrary() throws {
        let (directory, environment) = try Self.hiding("libimagequant.so.")
        defer { try? FileManager.default.removeItem(at: directory) }
        let palette = directory.appendingPathComponent("palette.png").path
        let result = try CLI.run(
            ["convert", CLI.fixture("jpeg-orientation-6.jpg"), palette, "--palette"], environment: environment)
        #expect(result.status != 0)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 1, "\(result.stderr)")
        #expect(lines.first?.contains("cannot load libimagequant.so.0 (install libimagequant0)") == true, "\(result.stderr)")
        #expect(lines.first?.components(separatedBy: "unavailable").count == 2, "said twice: \(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: palette))
        let full = directory.appendingPathComponent("full.png").path
        #expect(try CLI.run(["convert", CLI.fixture("jpeg-orientation-6.jpg"), full], environment: environment).status == 0)
    }

    @Test("videos fail one line, naming what to install, when ffmpeg's libraries are missing")
    func videoLibraries() throws {
        let (directory, environment) = try Self.hiding("libavcodec.so.")
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("strip.png").path
        let result = try CLI.run(["strip", CLI.fixture("video/gop1.mp4"), "--frames", "4", "--output", output], environment: environment)
        #expect(result.status != 0)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stderr)")
        #expect(lines.first?.contains("gop1.mp4: ffmpeg libraries unavailable: cannot load libavcodec") == true)
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}
