import Foundation
import Testing

/// Every out-of-range, non-numeric or malformed option of every command: one line on stderr that
/// names the option, exit status 64, nothing on stdout, never a trap.
@Suite("Bad options: one usage line, exit 64")
struct OptionValidationTests {
    static let image = CLI.fixture("jpeg-baseline.jpg")
    static let video = CLI.fixture("video/gop1.mp4")
    static let out = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-never-written").path

    /// (arguments, the option the message must name)
    static let cases: [([String], String)] = [
        // render
        (["render", "x.dzi", "--viewport", "100x100", "--scale", "0", "--output", out + ".png"], "--scale"),
        (["render", "x.dzi", "--viewport", "100x100", "--scale", "-2", "--output", out + ".png"], "--scale"),
        (["render", "x.dzi", "--viewport", "100x100", "--scale", "nan", "--output", out + ".png"], "--scale"),
        (["render", "x.dzi", "--viewport", "100x100", "--scale", "inf", "--output", out + ".png"], "--scale"),
        (["render", "x.dzi", "--viewport", "0x100", "--output", out + ".png"], "--viewport"),
        (["render", "x.dzi", "--viewport", "100", "--output", out + ".png"], "--viewport"),
        (["render", "x.dzi", "--viewport", "100x100", "--zoom", "0", "--output", out + ".png"], "--zoom"),
        (["render", "x.dzi", "--viewport", "100x100", "--zoom", "abc", "--output", out + ".png"], "--zoom"),
        (["render", "x.dzi", "--viewport", "100x100", "--center", "1", "--output", out + ".png"], "--center"),
        (["render", "x.dzi", "--viewport", "100x100", "--bias", "inf", "--output", out + ".png"], "--bias"),
        (["render", "x.dzi", "--viewport", "100x100", "--output", out + ".bmp"], ".bmp"),
        // load
        (["load", "a.jpg", "--size", "100x100", "--scale", "0"], "--scale"),
        (["load", "a.jpg", "--size", "-1x100"], "--size"),
        (["load", "a.jpg", "--size", "100x100", "--repeat", "0"], "--repeat"),
        (["load", "a.jpg", "--size", "100x100", "--concurrency", "0"], "--concurrency"),
        (["load", "a.jpg", "--size", "100x100", "--disk-limit", "-5"], "--disk-limit"),
        (["load", "a.jpg", "--size", "100x100", "--memory-limit", "x"], "--memory-limit"),
        (["load", "ftp://example.invalid/a.jpg", "--size", "100x100"], "ftp://"),
        // thumbnail
        (["thumbnail", image, "--max-pixel-size", "0", "--output", out + ".jpg"], "--max-pixel-size"),
        (["thumbnail", image, "--max-pixel-size", "12.5", "--output", out + ".jpg"], "--max-pixel-size"),
        (["thumbnail", image, "--fill", "0x10", "--output", out + ".jpg"], "--fill"),
        (["thumbnail", image, "--max-pixel-size", "10", "--quality", "0", "--output", out + ".jpg"], "--quality"),
        (["thumbnail", image, "--max-pixel-size", "10", "--quality", "101", "--output", out + ".jpg"], "--quality"),
        (["thumbnail", image, "--max-pixel-size", "10", "--jobs", "0", "--output", out + ".jpg"], "--jobs"),
        (["thumbnail", image, "--max-pixel-size", "10", "--palette", "--output", out + ".jpg"], "--palette"),
        (["thumbnail", image, "--max-pixel-size", "10", "--format", "webp", "--palette", "--output-dir", out], "--palette"),
        (["thumbnail", image, "--max-pixel-size", "10", "--dither", "0.5", "--output", out + ".png"], "--dither"),
        (["thumbnail", image, "--max-pixel-size", "10", "--palette", "--dither", "2", "--output", out + ".png"], "--dither"),
        (["thumbnail", image, "--max-pixel-size", "10", "--speed", "4", "--output", out + ".webp"], "--speed"),
        (["thumbnail", image, "--max-pixel-size", "10", "--speed", "10", "--output", out + ".avif"], "--speed"),
        (["thumbnail", image, "--max-pixel-size", "10", "--speed", "4", "--output-dir", out], "--speed"),
        (["thumbnail", image, "--max-pixel-size", "10", "--format", "bmp", "--output-dir", out], "--format"),
        (["convert", image, out + ".avif", "--palette"], "--palette"),
        (["convert", image, out + ".png", "--speed", "3"], "--speed"),
        (["thumbnail", image, "--max-pixel-size", "10", "--format", "bmp", "--output", out + ".jpg"], "--format"),
        (["thumbnail", image, "--max-pixel-size", "10", "--output", out + ".tiff"], ".tiff"),
        // convert
        (["convert", image, out + ".jpg", "--quality", "-1"], "--quality"),
        (["convert", image, out + ".jpg", "--max-pixels", "0"], "--max-pixels"),
        (["convert", image, out + ".bmp"], ".bmp"),
        // tile
        (["tile", image, "--output", out, "--tile-size", "0"], "--tile-size"),
        (["tile", image, "--output", out, "--overlap", "-1"], "--overlap"),
        (["tile", image, "--output", out, "--quality", "0"], "--quality"),
        (["tile", image, "--output", out, "--jobs", "0"], "--jobs"),
        (["tile", image, "--output", out, "--format", "bmp"], "--format"),
        (["tile", image, "--output", out, "--layout", "iiif", "--base-url", "not a url"], "--base-url"),
        // strip
        (["strip", video, "--frames", "0", "--output", out + ".jpg"], "--frames"),
        (["strip", video, "--frames", "two", "--output", out + ".jpg"], "--frames"),
        (["strip", video, "--frames", "4", "--height", "0", "--output", out + ".jpg"], "--height"),
        (["strip", video, "--frames", "4", "--width", "-3", "--output", out + ".jpg"], "--width"),
        (["strip", video, "--frames", "4", "--layout", "sprite", "--columns", "0", "--output", out + ".jpg"], "--columns"),
        // trimmer
        (["trimmer", video, "--size", "0x40", "--lower", "0", "--upper", "1", "--output", out + ".png"], "--size"),
        // 1e300 points used to trap converting to pixels; now it is over the 16384-pixel bound.
        (["trimmer", video, "--size", "1e300x40", "--lower", "0", "--upper", "1", "--output", out + ".png"], "--size"),
        (["trimmer", video, "--size", "300x40", "--scale", "0", "--lower", "0", "--upper", "1", "--output", out + ".png"], "--scale"),
        (["trimmer", video, "--size", "300x40", "--lower", "-1", "--upper", "1", "--output", out + ".png"], "--lower"),
        (["trimmer", video, "--size", "300x40", "--lower", "0", "--upper", "nan", "--output", out + ".png"], "--upper"),
        (["trimmer", video, "--size", "300x40", "--lower", "2", "--upper", "1", "--output", out + ".png"], "--upper"),
        (["trimmer", video, "--size", "300x40", "--lower", "0", "--upper", "1", "--playhead", "-1", "--output", out + ".png"], "--playhead"),
        // trim
        (["trim", video, "--from", "-1", "--to", "1", "--output", out + ".mp4"], "--from"),
        (["trim", video, "--from", "0", "--to", "inf", "--output", out + ".mp4"], "--to"),
        (["trim", video, "--from", "2", "--to", "1", "--output", out + ".mp4"], "--to"),
        // serve and sign (rates per second only; durations up to a year)
        (["serve", out, "--rate-limit", "0"], "--rate-limit"),
        (["serve", out, "--rate-limit", "10/m"], "--rate-limit"),
        (["serve", out, "--rate-limit", "-1/s"], "--rate-limit"),
        (["serve", out, "--pixel-rate", "5"], "--rate-limit"),
        (["sign", "/iiif/3/a.jpg/info.json", "--key-file", out, "--expires", "2y"], "--expires"),
    ]

    @Test("a bad option is one usage line naming it, exit 64, no output", arguments: cases)
    func badOption(arguments: [String], names option: String) throws {
        let result = try CLI.run(arguments)
        #expect(result.status == 64, "\(arguments): \(result.stderr)")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stderr)")
        #expect(lines.first?.contains(option) == true, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: Self.out + ".png"))
        #expect(!FileManager.default.fileExists(atPath: Self.out + ".jpg"))
    }

    @Test(
        "every command has help that exits 0",
        arguments: [
            "info", "convert", "thumbnail", "tile", "load", "render", "strip", "trimmer", "trim", "serve", "sign", "manifest",
        ])
    func help(command: String) throws {
        let result = try CLI.run([command, "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("USAGE"))
    }
}

/// The exit status says what kind of failure it was (README: "Exit status").
@Suite("Exit status by error category")
struct ExitStatusTests {
    @Test("not found 66, truncated 69, unsupported 67, corrupt 70, mixed 1")
    func categories() throws {
        #expect(try CLI.run(["info", "/nonexistent/a.png"]).status == 66)
        #expect(try CLI.run(["info", CLI.fixture("broken-truncated.png"), CLI.fixture("broken-empty.png")]).status == 69)
        #expect(try CLI.run(["info", CLI.fixture("manifest.json")]).status == 67)
        #expect(
            try CLI.run([
                "thumbnail", CLI.fixture("broken-corrupt-idat.png"), "--max-pixel-size", "8",
                "--output-dir", FileManager.default.temporaryDirectory.path,
            ]).status == 70)
        #expect(try CLI.run(["info", "/nonexistent/a.png", CLI.fixture("broken-empty.png")]).status == 1)
    }
}
