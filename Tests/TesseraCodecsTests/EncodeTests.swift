import Foundation
import Testing
import TesseraCore
@testable import TesseraCodecs

@Suite("Encoding JPEG, PNG and WebP")
struct EncodeTests {
    let decoder = ImageDecoder()

    func source(_ name: String) throws -> PixelBuffer {
        try decoder.decode(.file(Fixtures.path(name))).pixels
    }

    @Test("PNG and lossless WebP round-trip every pixel format exactly",
          arguments: ["png-gray-8.png", "png-gray-alpha-8.png", "png-rgb-8.png", "png-rgba-8.png"])
    func losslessRoundTrip(name: String) throws {
        let pixels = try source(name)
        let png = try ImageEncoder.encode(pixels, as: .png())
        #expect(try decoder.decode(.data(png)).pixels == pixels)
        let webp = try ImageEncoder.encode(pixels, as: .webpLossless)
        let fromWebP = try decoder.decode(.data(webp)).pixels
        // WebP stores colour only: gray comes back as equal RGB channels.
        let expected = pixels.converted(to: pixels.format.hasAlpha ? .rgba8 : .rgb8)
        #expect(PixelDifference(fromWebP, expected).maximum == 0)
    }

    @Test("JPEG keeps the image close at high quality, shrinks it at low quality, and honours progressive")
    func jpegQualityAndProgressive() throws {
        let pixels = try source("png-rgb-8.png")
        let high = try ImageEncoder.encode(pixels, as: .jpeg(quality: 95))
        let low = try ImageEncoder.encode(pixels, as: .jpeg(quality: 20))
        #expect(low.count < high.count)
        let decodedHigh = try decoder.decode(.data(high))
        let decodedLow = try decoder.decode(.data(low))
        // The fixture is noisy, and 4:2:0 chroma discards colour noise: Pillow measures 23.9 dB at q95
        // and 19.4 dB at q20 on it too.
        let highPSNR = PixelDifference(decodedHigh.pixels, pixels).psnr
        #expect(highPSNR > 23 && highPSNR > PixelDifference(decodedLow.pixels, pixels).psnr + 3)
        #expect(!decodedHigh.properties.isProgressive)
        let progressive = try ImageEncoder.encode(pixels, as: .jpeg(quality: 95, progressive: true))
        #expect(try decoder.probe(.data(progressive)).isProgressive)
        let gray = try ImageEncoder.encode(try source("png-gray-8.png"), as: .jpeg())
        #expect(try decoder.probe(.data(gray)).colorModel == .gray)
    }

    @Test("lossy WebP keeps alpha and stays close")
    func lossyWebP() throws {
        let pixels = try source("png-rgba-8.png")
        let webp = try ImageEncoder.encode(pixels, as: .webp(quality: 90))
        let decoded = try decoder.decode(.data(webp))
        #expect(decoded.pixels.format == .rgba8)
        #expect(PixelDifference(decoded.pixels, pixels).psnr > 23)
    }

    @Test("JPEG drops alpha by compositing over black")
    func jpegFlattensAlpha() throws {
        var transparent = PixelBuffer(width: 8, height: 8, format: .rgba8)
        for index in 0..<64 { transparent.bytes[index * 4...index * 4 + 3] = [255, 255, 255, 0] }
        let decoded = try decoder.decode(.data(try ImageEncoder.encode(transparent, as: .jpeg(quality: 90))))
        #expect(decoded.pixels.format == .rgb8)
        #expect(decoded.pixels.bytes.allSatisfy { $0 < 8 })
    }

    @Test("out-of-range settings and sizes a format cannot hold are typed errors")
    func invalidParameters() {
        let pixels = PixelBuffer(width: 4, height: 4, format: .rgb8)
        #expect(throws: ImageEncodingError.self) { try ImageEncoder.encode(pixels, as: .jpeg(quality: 0)) }
        #expect(throws: ImageEncodingError.self) { try ImageEncoder.encode(pixels, as: .png(compressionLevel: 10)) }
        let wide = PixelBuffer(width: 16384, height: 1, format: .rgb8)
        #expect(throws: ImageEncodingError.sizeNotSupported(wide.size, .webp())) {
            try ImageEncoder.encode(wide, as: .webp())
        }
    }

    @Test("file extensions name encodings")
    func extensions() {
        #expect(EncodingFormat(fileExtension: "JPG", quality: 70) == .jpeg(quality: 70))
        #expect(EncodingFormat(fileExtension: "png") == .png())
        #expect(EncodingFormat(fileExtension: "webp", quality: 50) == .webp(quality: 50))
        #expect(EncodingFormat(fileExtension: "bmp") == nil)
    }
}
