import Foundation
import TesseraCore
import TesseraTestSupport
import Testing

@testable import TesseraCodecs

/// JPEG XL through libjxl: the fixtures of scripts/make-jxl-fixtures.py against libjxl's own `djxl`.
@Suite struct JPEGXLTests {
    static func path(_ name: String) -> String { Fixtures.path("jpegxl/" + name) }

    /// `djxl` of `file` as PNG, decoded by Tessera's PNG reader (16-bit samples to their high byte).
    static func reference(_ file: String) throws -> PixelBuffer {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("djxl-\(UUID().uuidString).png").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/djxl")
        process.arguments = [path(file), output, "--quiet"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "djxl failed on \(file)")
        return try ImageDecoder().decode(.file(output)).pixels
    }

    @Test func probesFromTheHeaders() throws {
        let lossy = try ImageDecoder().probe(.file(Self.path("lossy.jxl")))
        #expect(lossy.format == .jxl && lossy.size == PixelSize(width: 200, height: 150) && lossy.decodedFormat == .rgb8)
        #expect(lossy.iccProfile == nil, "an sRGB image needs no profile")
        let gray = try ImageDecoder().probe(.file(Self.path("gray16.jxl")))
        #expect(gray.bitsPerComponent == 16 && gray.colorModel == .gray && gray.decodedFormat == .gray8)
        #expect(try ImageDecoder().probe(.file(Self.path("rgba.jxl"))).decodedFormat == .rgba8)
    }

    /// animated.jxl is gif-dispose-background.gif made lossless by cjxl: its frames are the GIF's
    /// as shown, but for the GIF's frame of 0 ms, which JPEG XL composes into the next (libjxl
    /// shows 3 frames where the GIF has 4). Durations as browsers show them (10 ms lasts 100).
    @Test func readsAnimationsFrameByFrame() throws {
        let animation = try AnimatedImage(.file(Self.path("animated.jxl")))
        let timing = try #require(animation.properties.animation)
        #expect(animation.properties.frameCount == 3 && animation.properties.warnings.isEmpty)
        #expect(timing.frameDurations == [0.08, 0.1, 0.12] && timing.loopCount == 0)
        let gif = try AnimatedImage(.file(Fixtures.path("animation/gif-dispose-background.gif"))).makeFrameReader()
        var gifFrames: [PixelBuffer] = []
        while let frame = try gif.next() { gifFrames.append(frame.pixels) }
        try #require(gifFrames.count == 4)
        let reader = try animation.makeFrameReader()
        var frames: [AnimationFrame] = []
        while let frame = try reader.next() { frames.append(frame) }
        #expect(frames.map(\.index) == [0, 1, 2] && frames.map(\.duration) == timing.frameDurations)
        for (frame, shown) in zip(frames, [0, 2, 3]) {
            #expect(frame.pixels.format == .rgba8 && maximumDifference(frame.pixels, gifFrames[shown]) == 0, "frame \(frame.index)")
        }
        // A still decode shows the first frame.
        #expect(maximumDifference(try ImageDecoder().decode(.file(Self.path("animated.jxl"))).pixels.converted(to: .rgba8), gifFrames[0]) == 0)
        // Cut inside its last frames, it shows its first frame, with a warning, as before its frames were read.
        let whole = try Data(contentsOf: URL(fileURLWithPath: Self.path("animated.jxl")))
        let cut = try ImageDecoder().decode(.data(whole.prefix(120)))
        #expect(cut.properties.frameCount == 1 && cut.properties.animation == nil)
        #expect(cut.properties.warnings.contains { $0.contains("its first frame is shown") })
        #expect(maximumDifference(cut.pixels.converted(to: .rgba8), gifFrames[0]) == 0)
    }

    /// The same library decodes both: lossless files exactly, the rest within a level (djxl's
    /// 16-bit PNG is reduced to its high byte here, libjxl rounds to 8 bits for Tessera).
    @Test(arguments: ["lossless.jxl", "lossy.jxl", "gray16.jxl", "rgba.jxl", "recompressed.jxl"])
    func decodesAsLibjxlsOwnToolDoes(_ file: String) throws {
        let ours = try ImageDecoder().decode(.file(Self.path(file))).pixels
        let theirs = try Self.reference(file)
        #expect(ours.size == theirs.size && ours.format == theirs.format)
        #expect(maximumDifference(ours, theirs) <= (file == "gray16.jxl" ? 1 : 0), "\(file)")
    }

    @Test(arguments: [PixelFormat.gray8, .grayAlpha8, .rgb8, .rgba8])
    func writesLosslessFilesThatReadBackExactly(_ format: PixelFormat) throws {
        let pixels = JPEG2000Tests.pattern(PixelSize(width: 90, height: 70), format)
        let data = try ImageEncoder.encode(pixels, as: .jxl(lossless: true))
        let decoded = try ImageDecoder().decode(.data(data))
        #expect(decoded.properties.format == .jxl && decoded.pixels == pixels)
    }

    @Test func writesLossyFilesByQualityAndKeepsTheProfile() throws {
        let pixels = JPEG2000Tests.pattern(PixelSize(width: 128, height: 96), .rgb8)
        let small = try ImageEncoder.encode(pixels, as: .jxl(quality: 50)), large = try ImageEncoder.encode(pixels, as: .jxl(quality: 95))
        #expect(small.count < large.count)
        #expect(psnr(try ImageDecoder().decode(.data(large)).pixels, pixels) > psnr(try ImageDecoder().decode(.data(small)).pixels, pixels))
        let profile = try #require(try ImageDecoder().probe(.file(Fixtures.path("colour/adobe-rgb.png"))).iccProfile)
        let tagged = try ImageEncoder.encode(pixels, as: .jxl(lossless: true), iccProfile: profile)
        var keep = DecodeOptions()
        keep.colorManagement = .keepSourceProfile
        let kept = try ImageDecoder(options: keep).decode(.data(tagged))
        #expect(kept.pixels == pixels && kept.iccProfile?.colorSpace == .rgb)
    }

    /// JPEG → JPEG XL recompression keeps what djxl needs to rebuild the original bytes.
    @Test func recompressesJPEGsLosslessly() throws {
        let jpeg = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("jpeg-baseline.jpg")))
        let jxl = try ImageEncoder.recompressJPEGAsJPEGXL(jpeg)
        // (A 2 KB fixture is no smaller recompressed: the container's boxes outweigh the saving.)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("jxl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try jxl.write(to: directory.appendingPathComponent("a.jxl"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/djxl")
        process.arguments = [directory.appendingPathComponent("a.jxl").path, directory.appendingPathComponent("back.jpg").path, "--quiet"]
        try process.run()
        process.waitUntilExit()
        #expect(try Data(contentsOf: directory.appendingPathComponent("back.jpg")) == jpeg)
        #expect(throws: ImageEncodingError.self) { try ImageEncoder.recompressJPEGAsJPEGXL(Data("not a JPEG".utf8)) }
    }

    /// A file cut short is truncated, as a cut JPEG or PNG is (the CLI's exit 69, not corrupt's 70):
    /// libjxl says its data ends early only while its input is left open.
    @Test(arguments: ["lossy.jxl", "lossless.jxl", "gray16.jxl", "rgba.jxl", "recompressed.jxl"])
    func aFileCutShortIsTruncated(_ file: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.path(file)))
        for cut in [data.prefix(data.count / 2), data.prefix(data.count * 3 / 4)] {
            #expect(
                performing: { try ImageDecoder().decode(.data(cut)) },
                throws: { error in
                    guard case ImageDecodingError.truncated = error else { return false }
                    return true
                })
        }
    }

    @Test func thumbnailsAndHostileInput() throws {
        let thumbnail = try Thumbnailer().thumbnail(.file(Self.path("lossy.jxl")), options: ThumbnailOptions(maxPixelSize: 50))
        #expect(thumbnail.pixels.size == PixelSize(width: 50, height: 38))
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.path("lossy.jxl")))
        for length in stride(from: 1, to: data.count, by: 97) {
            #expect(throws: ImageDecodingError.self) { try ImageDecoder().decode(.data(data.prefix(length))) }
        }
        // Headers claiming more pixels than the limit are refused before any pixel is decoded.
        var options = DecodeOptions()
        options.maximumPixelCount = 10_000
        #expect(throws: ImageDecodingError.tooLarge(pixels: 30_000, limit: 10_000)) {
            try ImageDecoder(options: options).probe(.file(Self.path("lossy.jxl")))
        }
    }
}
