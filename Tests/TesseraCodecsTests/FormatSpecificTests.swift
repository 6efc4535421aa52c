import Foundation
import TesseraCore
import Testing

@testable import TesseraCodecs

@Suite("Format details")
struct FormatSpecificTests {
    let decoder = ImageDecoder()

    @Test("sniffing looks at content, never the name")
    func sniffing() throws {
        #expect(ImageFormat(sniffing: [0xFF, 0xD8, 0xFF, 0xE0]) == .jpeg)
        #expect(ImageFormat(sniffing: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) == .png)
        #expect(ImageFormat(sniffing: Array("GIF89a".utf8)) == .gif)
        #expect(ImageFormat(sniffing: Array("RIFF\0\0\0\0WEBPVP8 ".utf8)) == .webp)
        #expect(ImageFormat(sniffing: Array("RIFF\0\0\0\0WAVEfmt ".utf8)) == nil)
        #expect(ImageFormat(sniffing: [0x4D, 0x4D, 0x00, 0x2A]) == .tiff)
        #expect(ImageFormat(sniffing: [0, 0, 0, 24] + Array("ftypmif1\0\0\0\0avif".utf8)) == .avif)
        #expect(ImageFormat(sniffing: [0, 0, 0, 24] + Array("ftypheic\0\0\0\0mif1".utf8)) == .heic)
        #expect(ImageFormat(sniffing: [0, 0, 0, 20] + Array("ftypisom\0\0\0\0".utf8)) == nil)  // MP4
        #expect(ImageFormat(sniffing: Array("\u{FEFF}  <?xml version=\"1.0\"?><svg></svg>".utf8)) == .svg)
        #expect(ImageFormat(sniffing: Array("<html><body>no</body></html>".utf8)) == nil)
        #expect(ImageFormat(sniffing: []) == nil)
        // A PNG named .jpg is still a PNG.
        let data = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("png-rgb-8.png")))
        let renamed = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-\(UUID()).jpg")
        try data.write(to: renamed)
        defer { try? FileManager.default.removeItem(at: renamed) }
        #expect(try decoder.probe(.file(renamed.path)).format == .png)
    }

    @Test("SVG renders at its width and height, or its viewBox without them")
    func svg() throws {
        let sized = try decoder.decode(.file(Fixtures.path("svg-size.svg"))).pixels
        #expect(sized.size == PixelSize(width: 120, height: 80))
        #expect(Array(sized.pixel(x: 10, y: 40)) == [255, 0, 0, 255])
        #expect(Array(sized.pixel(x: 110, y: 40)) == [0, 0, 255, 255])
        let viewBox = try decoder.decode(.file(Fixtures.path("svg-viewbox.svg"))).pixels
        #expect(viewBox.size == PixelSize(width: 90, height: 60))
        #expect(Array(viewBox.pixel(x: 45, y: 10)) == [0, 255, 0, 255])
        #expect(viewBox.pixel(x: 45, y: 50).last == 0)
    }

    @Test("SVG physical units are CSS pixels at 96 per inch, as browsers draw them")
    func svgPhysicalUnits() throws {
        let page = #"<svg xmlns="http://www.w3.org/2000/svg" width="210mm" height="297mm"><rect width="10mm" height="1in"/></svg>"#
        #expect(try ImageDecoder().probe(.data(Data(page.utf8))).size == PixelSize(width: 794, height: 1123))
        let rendered = try ImageDecoder().decode(.data(Data(page.utf8))).pixels
        // The 1-inch rectangle is 96 pixels tall: opaque in row 95, clear in row 97.
        #expect(Array(rendered.pixel(x: 5, y: 95))[3] == 255)
        #expect(Array(rendered.pixel(x: 5, y: 97))[3] == 0)
    }

    @Test("SVG renders directly at a smaller requested size")
    func svgScaled() throws {
        let small = ImageDecoder(options: DecodeOptions(minimumSize: PixelSize(width: 30, height: 20)))
        let decoded = try small.decode(.file(Fixtures.path("svg-size.svg")))
        #expect(decoded.pixels.size == PixelSize(width: 30, height: 20))
        #expect(decoded.decodeScale == 4)
        #expect(Array(decoded.pixels.pixel(x: 2, y: 10)) == [255, 0, 0, 255])
    }

    @Test(
        "JPEG shrinks in the DCT to the smallest power-of-two scale that still covers the request",
        arguments: [
            (PixelSize(width: 80, height: 60), 8), (PixelSize(width: 81, height: 60), 4),
            (PixelSize(width: 200, height: 10), 2), (PixelSize(width: 321, height: 1), 1),
        ])
    func jpegDCTScaling(minimum: PixelSize, expectedScale: Int) throws {
        let scaled = ImageDecoder(options: DecodeOptions(minimumSize: minimum))
        let decoded = try scaled.decode(.file(Fixtures.path("jpeg-exif-thumbnail.jpg")))
        #expect(decoded.decodeScale == Double(expectedScale))
        #expect(decoded.pixels.size == PixelSize(width: 640 / expectedScale, height: 480 / expectedScale))
        #expect(decoded.pixels.width >= minimum.width && decoded.pixels.height >= minimum.height)
        // The reduced decode is a faithful small version of the full one.
        let full = try decoder.decode(.file(Fixtures.path("jpeg-exif-thumbnail.jpg"))).pixels
        let sample = full.pixel(x: 320, y: 240)
        let reduced = decoded.pixels.pixel(x: 320 / expectedScale, y: 240 / expectedScale)
        #expect(zip(sample, reduced).allSatisfy { abs(Int($0) - Int($1)) < 40 })
    }

    @Test("stray bytes between JPEG marker segments are skipped, as libjpeg skips them")
    func jpegStrayBytesBetweenSegments() throws {
        let clean = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("jpeg-baseline.jpg"))))
        // After SOI and the first segment (its length is in bytes 4–5), eight bytes of junk.
        let firstEnd = 4 + (Int(clean[4]) << 8 | Int(clean[5]))
        let junky = Data(Array(clean[..<firstEnd]) + [0x00, 0x12, 0x34, 0x56, 0x00, 0x00, 0x78, 0x9A] + Array(clean[firstEnd...]))
        let expected = try ImageDecoder().decode(.data(Data(clean))).pixels
        #expect(try ImageDecoder().probe(.data(junky)).size == expected.size)
        #expect(try ImageDecoder().decode(.data(junky)).pixels == expected)
    }

    @Test("WebP scales while decoding when a smaller size is enough")
    func webpScaled() throws {
        let scaled = ImageDecoder(options: DecodeOptions(minimumSize: PixelSize(width: 32, height: 24)))
        let decoded = try scaled.decode(.file(Fixtures.path("webp-lossy.webp")))
        #expect(decoded.pixels.size == PixelSize(width: 32, height: 24))
        #expect(decoded.decodeScale == 2)
    }

    @Test("the JPEG probe finds the EXIF thumbnail without touching the scan data")
    func exifThumbnail() throws {
        let stream = try ImageSource.file(Fixtures.path("jpeg-exif-thumbnail.jpg")).openStream()
        let header = try JPEGHeader(reading: stream)
        let block = try #require(header.exifBlock)
        let range = try #require(header.exif.thumbnailRange)
        let thumbnail = Data(block[range])
        #expect(try decoder.probe(.data(thumbnail)).size == PixelSize(width: 160, height: 120))
        #expect(stream.offset < stream.length / 2)
    }

    @Test("EXIF blocks in either byte order give their orientation; malformed ones give .up")
    func exifParsing() {
        let little: [UInt8] = [0x49, 0x49, 0x2A, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0]
        let big: [UInt8] = [0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 8, 0, 0, 0, 0, 0, 0]
        #expect(EXIFMetadata(little).orientation == .right)
        #expect(EXIFMetadata(Array("Exif\0\0".utf8) + big).orientation == .left)
        #expect(EXIFMetadata(Array(little.prefix(12))).orientation == .up)
        #expect(EXIFMetadata([0x49, 0x49, 0x2A, 0, 0xFF, 0xFF, 0xFF, 0x7F]).orientation == .up)
        var invalid = little
        invalid[18] = 9
        #expect(EXIFMetadata(invalid).orientation == .up)
    }

    @Test(
        "random bytes after a valid signature never crash any decoder",
        arguments: [
            "jpeg-baseline.jpg", "png-rgb-8.png", "gif-single.gif", "webp-lossy.webp",
            "heic-basic.heic", "avif-basic.avif", "tiff-rgb-lzw.tif", "tiff-rgb-tiled.tif",
        ])
    func corruptedBodies(name: String) throws {
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.path(name))))
        var generator = SplitMix64(seed: UInt64(name.utf8.count))
        for round in 0..<40 {
            var bytes = original
            // Keep the first 16 bytes (the signature) and damage the rest, more each round.
            for _ in 0...(round * 3) {
                let index = 16 + Int(generator.next() % UInt64(bytes.count - 16))
                bytes[index] = UInt8(truncatingIfNeeded: generator.next())
            }
            if round % 4 == 3 { bytes = Array(bytes.prefix(16 + Int(generator.next() % UInt64(bytes.count - 16)))) }
            do {
                let decoded = try decoder.decode(.data(Data(bytes)))
                #expect(decoded.pixels.byteCount <= DecodeOptions.defaultMaximumPixelCount * 4)
            } catch {
                #expect(!error.description.isEmpty)
            }
        }
    }
}

/// A small deterministic generator, so damaged inputs are the same on every run.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite("Hostile headers")
struct HostileHeaderTests {
    /// The progressive fixture with its frame header claiming `width × height`.
    func progressiveClaiming(width: Int, height: Int) throws -> Data {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("jpeg-progressive.jpg"))))
        let sof = try #require((0..<bytes.count - 1).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC2 })
        bytes[sof + 5] = UInt8(height >> 8); bytes[sof + 6] = UInt8(height & 0xFF)
        bytes[sof + 7] = UInt8(width >> 8); bytes[sof + 8] = UInt8(width & 0xFF)
        return Data(bytes)
    }

    @Test("a progressive JPEG claiming 60000×60000 is refused before libjpeg allocates its coefficients")
    func hugeProgressive() throws {
        let data = try progressiveClaiming(width: 60000, height: 60000)
        #expect(try ImageDecoder().probe(.data(data)).size == PixelSize(width: 60000, height: 60000))
        let thumbnail = #expect(throws: ImageDecodingError.self) {
            try Thumbnailer().thumbnail(.data(data), options: ThumbnailOptions(maxPixelSize: 256))
        }
        #expect(thumbnail?.kind == "tooLarge", "\(String(describing: thumbnail))")
    }
}
