import Foundation
import Testing

/// The still formats ffmpeg's image decoders read (BMP, ICO, PNM, TGA), those Tessera recognises and
/// does not read, and JPEG XL output from `convert`, `thumbnail` and `tile`, as a user runs them.
@Suite("Still formats and JPEG XL on the command line")
struct StillAndJXLCommandTests {
    let directory: String

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    /// The JSON `info` prints for `path`.
    private func info(_ path: String) throws -> [String: Any] {
        let result = try CLI.run(["info", "--json", path])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
        return try #require((object as? [[String: Any]])?.first ?? object as? [String: Any])
    }

    /// The bytes of `tessera convert input out.png`: what two inputs decoding alike have in common.
    private func png(of input: String, _ name: String) throws -> Data {
        let output = directory + "/" + name + ".png"
        let result = try CLI.run(["convert", input, output])
        #expect(result.status == 0, "\(result.stderr)")
        return try Data(contentsOf: URL(fileURLWithPath: output))
    }

    @Test("BMP, ICO, PNM and TGA are read: info, convert and thumbnail, never as a video")
    func readsStillFormats() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for (file, format) in [("bmp-pal8.bmp", "bmp"), ("ico-bmp24.ico", "ico"), ("ppm.ppm", "pnm"), ("tga-rgb-nofooter.tga", "tga")] {
            let properties = try info(CLI.fixture("stills/" + file))
            #expect(properties["format"] as? String == format && properties["width"] as? Int == 37, "\(file)")
        }
        // The same pixels in two containers convert to the same PNG.
        #expect(try png(of: CLI.fixture("stills/tga-rgb.tga"), "tga") == png(of: CLI.fixture("stills/ppm.ppm"), "ppm"))
        let thumbnail = try CLI.run([
            "thumbnail", CLI.fixture("stills/ico-png.ico"), "--max-pixel-size", "20", "--format", "png", "--output-dir", directory + "/t",
        ])
        #expect(thumbnail.status == 0, "\(thumbnail.stderr)")
        #expect(try info(directory + "/t/ico-png.png")["width"] as? Int == 20)
    }

    @Test("a still image in a format Tessera does not read is unsupported (67), never a video")
    func unreadStillFormats() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/a.pcx"
        try Data([0x0A, 5, 1, 8] + [UInt8](repeating: 0, count: 124)).write(to: URL(fileURLWithPath: path))
        let result = try CLI.run(["info", path])
        #expect(result.status == 67)
        #expect(result.stderr.contains("PCX images are not read") && !result.stderr.contains("video"), "\(result.stderr)")
        // A recognised format with a damaged header is a corrupt image (70), not a video either.
        let bmp = directory + "/a.bmp"
        try Data(Array("BM".utf8) + [UInt8](repeating: 0, count: 12) + [40] + [UInt8](repeating: 0, count: 67)).write(to: URL(fileURLWithPath: bmp))
        let broken = try CLI.run(["info", bmp])
        #expect(broken.status == 70 && broken.stderr.contains("corrupt") && !broken.stderr.contains("video"), "\(broken.stderr)")
    }

    @Test("convert writes JPEG XL: lossless reads back exactly, lossy by quality")
    func convertToJPEGXL() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let lossless = directory + "/a.jxl", lossy = directory + "/b.jxl"
        #expect(try CLI.run(["convert", CLI.fixture("photo-400x300.png"), lossless, "--lossless"]).status == 0)
        let properties = try info(lossless)
        #expect(properties["format"] as? String == "jxl" && properties["width"] as? Int == 400)
        #expect(try png(of: lossless, "back") == png(of: CLI.fixture("photo-400x300.png"), "original"), "a lossless round trip changed pixels")
        #expect(try CLI.run(["convert", CLI.fixture("photo-400x300.png"), lossy, "--quality", "40"]).status == 0)
        let sizes = try [lossless, lossy].map { try FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int ?? 0 }
        #expect(sizes[1] < sizes[0], "quality 40 is smaller than lossless")
    }

    @Test("convert --lossless-jpeg recompresses a JPEG that djxl rebuilds byte for byte; other inputs and outputs refused")
    func losslessJPEGRecompression() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let jxl = directory + "/a.jxl", rebuilt = directory + "/rebuilt.jpg"
        let result = try CLI.run(["convert", CLI.fixture("jpeg-baseline.jpg"), jxl, "--lossless-jpeg"])
        #expect(result.status == 0, "\(result.stderr)")
        let djxl = Process()
        djxl.executableURL = URL(fileURLWithPath: "/usr/bin/djxl")
        djxl.arguments = [jxl, rebuilt, "--quiet"]
        djxl.standardError = FileHandle.nullDevice
        try djxl.run()
        djxl.waitUntilExit()
        #expect(try Data(contentsOf: URL(fileURLWithPath: rebuilt)) == Data(contentsOf: URL(fileURLWithPath: CLI.fixture("jpeg-baseline.jpg"))))
        let notJPEG = try CLI.run(["convert", CLI.fixture("photo-400x300.png"), directory + "/b.jxl", "--lossless-jpeg"])
        #expect(notJPEG.status == 67 && notJPEG.stderr.contains("needs a JPEG input"), "\(notJPEG.stderr)")
        let notJXL = try CLI.run(["convert", CLI.fixture("jpeg-baseline.jpg"), directory + "/b.png", "--lossless-jpeg"])
        #expect(notJXL.status == 64 && notJXL.stderr.contains("writes .jxl output"), "\(notJXL.stderr)")
        let withQuality = try CLI.run(["convert", CLI.fixture("jpeg-baseline.jpg"), jxl, "--lossless-jpeg", "--quality", "80"])
        #expect(withQuality.status == 64, "\(withQuality.stderr)")
    }

    @Test("thumbnail and tile write JPEG XL; help and errors list jxl")
    func thumbnailAndTileToJPEGXL() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let thumbnail = try CLI.run([
            "thumbnail", CLI.fixture("photo-400x300.png"), "--max-pixel-size", "64", "--format", "jxl", "--output-dir", directory + "/t",
        ])
        #expect(thumbnail.status == 0, "\(thumbnail.stderr)")
        let properties = try info(directory + "/t/photo-400x300.jxl")
        #expect(properties["format"] as? String == "jxl" && properties["width"] as? Int == 64)
        let tile = try CLI.run(["tile", CLI.fixture("photo-400x300.png"), "--output", directory + "/z", "--format", "jxl", "--tile-size", "256"])
        #expect(tile.status == 0, "\(tile.stderr)")
        let tiles = FileManager.default.enumerator(atPath: directory + "/z")?.compactMap { $0 as? String }.filter { $0.hasSuffix(".jxl") } ?? []
        #expect(!tiles.isEmpty)
        for tile in tiles.prefix(3) { #expect(try info(directory + "/z/" + tile)["format"] as? String == "jxl") }
        let wrong = try CLI.run(["tile", CLI.fixture("photo-400x300.png"), "--output", directory + "/w", "--format", "bmp"])
        #expect(wrong.status == 64 && wrong.stderr.contains("jp2 or jxl"), "\(wrong.stderr)")
        for command in ["tile", "thumbnail"] {
            #expect(try CLI.run([command, "--help"]).stdout.contains("jxl"), "\(command) --help")
        }
    }
}
