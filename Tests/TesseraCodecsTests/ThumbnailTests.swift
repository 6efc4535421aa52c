import Foundation
import TesseraCore
import Testing

@testable import TesseraCodecs

@Suite("Thumbnails")
struct ThumbnailTests {
    let thumbnailer = Thumbnailer()

    func thumbnail(_ name: String, _ options: ThumbnailOptions) throws -> Thumbnail {
        try thumbnailer.thumbnail(.file(Fixtures.path(name)), options: options)
    }

    @Test(
        "sizes: aspect kept, sides rounded to the nearest pixel and at least 1, never upscaled",
        arguments: [
            (PixelSize(width: 640, height: 480), 100, PixelSize(width: 100, height: 75)),
            (PixelSize(width: 640, height: 480), 203, PixelSize(width: 203, height: 152)),  // 152.25
            (PixelSize(width: 3, height: 1000), 100, PixelSize(width: 1, height: 100)),  // 0.3 → 1
            (PixelSize(width: 1001, height: 3), 500, PixelSize(width: 500, height: 1)),  // 1.498 → 1
            (PixelSize(width: 333, height: 1000), 100, PixelSize(width: 33, height: 100)),  // 33.3
            (PixelSize(width: 335, height: 1000), 100, PixelSize(width: 34, height: 100)),  // 33.5
            (PixelSize(width: 64, height: 48), 512, PixelSize(width: 64, height: 48)),  // no upscale
        ])
    func targetSizes(source: PixelSize, maxPixelSize: Int, expected: PixelSize) {
        #expect(ThumbnailOptions(maxPixelSize: maxPixelSize).targetSize(for: source) == expected)
    }

    @Test("a point size and a scale give max(width, height) × scale pixels")
    func pointSizing() {
        let options = ThumbnailOptions(pointSize: PointSize(width: 100, height: 60), scale: .x3)
        #expect(options.sizing == .fit(maxPixelSize: 300))
        #expect(
            ThumbnailOptions(maxPixelSize: nil).targetSize(for: PixelSize(width: 640, height: 480))
                == PixelSize(width: 640, height: 480))
    }

    @Test("a smaller source comes back at its own size")
    func neverUpscales() throws {
        let result = try thumbnail("png-rgb-8.png", ThumbnailOptions(maxPixelSize: 1000))
        #expect(result.pixels.size == PixelSize(width: 64, height: 48))
        let original = try ImageDecoder().decode(.file(Fixtures.path("png-rgb-8.png"))).pixels
        #expect(result.pixels == original)
    }

    @Test(
        "all eight orientations give the same upright thumbnail, bounded after turning",
        arguments: 1...8)
    func orientations(value: Int) throws {
        let options = ThumbnailOptions(maxPixelSize: 24)
        let reference = try thumbnail("upright-reference.png", options).pixels
        let result = try thumbnail("jpeg-orientation-\(value).jpg", options)
        #expect(result.pixels.size == PixelSize(width: 24, height: 16))
        #expect(PixelDifference(result.pixels, reference).mean < 6, "\(PixelDifference(result.pixels, reference))")
    }

    @Test("without the transform, pixels stay as stored and the bound applies to the stored size")
    func noTransform() throws {
        var options = ThumbnailOptions(maxPixelSize: 24)
        options.createThumbnailWithTransform = false
        let result = try thumbnail("jpeg-orientation-6.jpg", options)
        #expect(result.pixels.size == PixelSize(width: 16, height: 24))
        let stored = try ImageDecoder().decode(.file(Fixtures.path("jpeg-orientation-6.jpg"))).pixels
        let expected = LanczosResampler.resize(stored, to: PixelSize(width: 16, height: 24))
        #expect(PixelDifference(result.pixels, expected).mean < 3)
    }

    @Test("ifAbsent uses the EXIF thumbnail only when it covers the request; fromImageAlways never does")
    func embeddedThumbnail() throws {
        var options = ThumbnailOptions(maxPixelSize: 160)
        options.embeddedThumbnail = .ifAbsent
        let embedded = try thumbnail("jpeg-exif-thumbnail.jpg", options)
        #expect(embedded.usedEmbeddedThumbnail)
        #expect(embedded.pixels.size == PixelSize(width: 160, height: 120))
        options.sizing = .fit(maxPixelSize: 200)
        let tooSmall = try thumbnail("jpeg-exif-thumbnail.jpg", options)
        #expect(!tooSmall.usedEmbeddedThumbnail)
        #expect(tooSmall.decodeScale == 2)
        let always = try thumbnail("jpeg-exif-thumbnail.jpg", ThumbnailOptions(maxPixelSize: 160))
        #expect(!always.usedEmbeddedThumbnail)
        #expect(always.decodeScale == 4)
    }

    @Test(
        "each format reports the shrink it took while decoding",
        arguments: [
            ("jpeg-exif-thumbnail.jpg", 80, 8.0), ("jpeg-exif-thumbnail.jpg", 100, 4.0),
            ("webp-lossy.webp", 16, 4.0), ("svg-size.svg", 30, 4.0), ("photo-400x300.png", 50, 1.0),
            ("tiff-rgb-lzw.tif", 16, 1.0), ("heic-basic.heic", 16, 1.0),
        ])
    func decodeScales(name: String, maxPixelSize: Int, expected: Double) throws {
        let result = try thumbnail(name, ThumbnailOptions(maxPixelSize: maxPixelSize))
        #expect(result.decodeScale == expected)
        #expect(result.pixels.size.longestSide == maxPixelSize)
    }

    @Test(
        "results stay close to Pillow's Lanczos resize of the full image",
        arguments: [
            ("jpeg-exif-thumbnail.jpg", PixelSize(width: 100, height: 75)),
            ("jpeg-exif-thumbnail.jpg", PixelSize(width: 203, height: 152)),
            ("photo-400x300.png", PixelSize(width: 100, height: 75)),
            ("photo-400x300.png", PixelSize(width: 37, height: 28)),
            ("photo-alpha-400x300.png", PixelSize(width: 100, height: 75)),
        ])
    func closeToLanczos(name: String, size: PixelSize) throws {
        let result = try thumbnail(name, ThumbnailOptions(maxPixelSize: size.longestSide))
        let stem = (name as NSString).deletingPathExtension
        let reference = try Fixtures.pam("lanczos/\(stem)-\(size.width)x\(size.height).pam")
        #expect(result.pixels.size == size)
        let difference = PixelDifference(result.pixels, reference)
        #expect(difference.psnr >= 30, "\(difference)")
    }

    @Test("aspect-fill covers the box with its short side, cropping only when asked")
    func fill() throws {
        let box = PixelSize(width: 100, height: 100)
        let uncropped = try thumbnail("jpeg-exif-thumbnail.jpg", ThumbnailOptions(sizing: .box(box, mode: .fill)))
        #expect(uncropped.pixels.size == PixelSize(width: 133, height: 100))
        let cropped = try thumbnail("jpeg-exif-thumbnail.jpg", ThumbnailOptions(sizing: .box(box, mode: .centerCrop)))
        #expect(cropped.pixels.size == box)
        #expect(Array(cropped.pixels.pixel(x: 0, y: 50)) == Array(uncropped.pixels.pixel(x: 16, y: 50)))
    }

    @Test("the 40000×40000 bomb streams to 512 px in bounded memory instead of being refused")
    func bomb() throws {
        let result = try thumbnail("bomb-40000.png", ThumbnailOptions(maxPixelSize: 512))
        #expect(result.pixels.size == PixelSize(width: 512, height: 512))
        #expect(result.pixels.bytes.allSatisfy { $0 == 0 })
        #expect(result.peakWorkingByteCount < 16 << 20, "\(result.peakWorkingByteCount) bytes")
        // The full-decode limit still guards the formats that cannot stream.
        #expect(throws: ImageDecodingError.self) { try ImageDecoder().decode(.file(Fixtures.path("bomb-40000.png"))) }
    }

    @Test("a TIFF of one 100 MB deflate strip streams a band of rows at a time, within a 4-megapixel limit")
    func tallStrip() throws {
        // Read whole, the one strip alone would be 100 megapixels, over the limit.
        let options = ThumbnailOptions(sizing: .fit(maxPixelSize: 100), maximumPixelCount: 4_000_000)
        let result = try thumbnail("bombs/deflate-10000.tif", options)
        #expect(result.pixels.size == PixelSize(width: 100, height: 100))
        #expect(result.pixels.bytes.allSatisfy { $0 == 0 })
        #expect(result.peakWorkingByteCount < 4 << 20, "\(result.peakWorkingByteCount) bytes")
    }

    @Test("a lossless WebP counts against the limit at full size, since libwebp decodes it whole at any scale")
    func losslessWebPIsHeldWhole() throws {
        let options = ThumbnailOptions(sizing: .fit(maxPixelSize: 64), maximumPixelCount: 100_000_000)
        #expect {
            try thumbnail("bombs/lossless-16384.webp", options)
        } throws: { error in
            guard case ImageDecodingError.tooLarge(let pixels, _) = error else { return false }
            return pixels == 16384 * 16384
        }
        // A lossy WebP without alpha is scaled as it decodes: the limit applies to what is made.
        let lossy = try thumbnail("webp-lossy.webp", ThumbnailOptions(sizing: .fit(maxPixelSize: 16), maximumPixelCount: 1000))
        #expect(max(lossy.pixels.size.width, lossy.pixels.size.height) == 16)
    }

    @Test("working memory follows the target, not the source")
    func memoryFollowsTarget() throws {
        let small = try thumbnail("photo-400x300.png", ThumbnailOptions(maxPixelSize: 20))
        let large = try thumbnail("photo-400x300.png", ThumbnailOptions(maxPixelSize: 200))
        #expect(small.peakWorkingByteCount < large.peakWorkingByteCount)
        #expect(small.peakWorkingByteCount < 400 * 300 * 3)  // less than the full decode
    }

    @Test("broken inputs give typed errors", arguments: Fixtures.broken.filter { $0.expectedError != "tooLarge" })
    func broken(entry: Fixtures.Entry) {
        let error = #expect(throws: ImageDecodingError.self) {
            try thumbnailer.thumbnail(.file(entry.path), options: ThumbnailOptions(maxPixelSize: 32))
        }
        #expect(error?.kind == entry.expectedError)
    }
}
