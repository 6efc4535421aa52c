import Foundation
import TesseraCore
import Testing

@testable import TesseraCodecs

@Suite("Encoding JPEG, PNG, WebP, AVIF, HEIC and palette PNG")
struct EncodeTests {
    let decoder = ImageDecoder()

    func source(_ name: String) throws -> PixelBuffer {
        try decoder.decode(.file(Fixtures.path(name))).pixels
    }

    @Test(
        "PNG and lossless WebP round-trip every pixel format exactly",
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
        #expect(EncodingFormat(fileExtension: "avif") == .avif(quality: 50))
        #expect(EncodingFormat(fileExtension: "HEIF", quality: 70) == .heic(quality: 70))
        #expect(EncodingFormat(fileExtension: "bmp") == nil)
        // Derivatives stay in formats every browser shows.
        #expect(EncodingFormat.derivative(ofInput: "a.heic", hasAlpha: false) == .jpeg())
        #expect(EncodingFormat.derivative(ofInput: "a.avif", hasAlpha: true) == .png())
        #expect(EncodingFormat.derivative(ofInput: "a.webp", hasAlpha: true) == .webp())
    }

    @Test("AVIF and HEIC keep the image close, alpha included; quality trades size", arguments: ["avif", "heic"])
    func heifFamily(name: String) throws {
        let pixels = try source("photo-alpha-400x300.png")
        let (lowFormat, highFormat): (EncodingFormat, EncodingFormat) =
            name == "avif"
            ? (.avif(quality: 20), .avif(quality: 80)) : (.heic(quality: 20), .heic(quality: 80))
        let low = try ImageEncoder.encode(pixels, as: lowFormat)
        let high = try ImageEncoder.encode(pixels, as: highFormat)
        #expect(low.count < high.count)
        let decoded = try decoder.decode(.data(high))
        #expect(decoded.properties.format.rawValue == name)
        #expect(decoded.pixels.format == .rgba8 && decoded.pixels.size == pixels.size)
        // libheif's own decode of libheif's encode: 4:2:0 chroma of a photograph at quality 80.
        let highPSNR = PixelDifference(decoded.pixels, pixels).psnr
        #expect(highPSNR > 30, "\(highPSNR) dB")
        #expect(highPSNR > PixelDifference(try decoder.decode(.data(low)).pixels, pixels).psnr)
        // Opaque input has no alpha channel in the file.
        let opaque = try ImageEncoder.encode(try source("photo-400x300.png"), as: lowFormat)
        #expect(try !decoder.probe(.data(opaque)).hasAlpha)
    }

    @Test("AVIF speed: both ends of 0–9 make a file, anything else is a typed error")
    func avifSpeed() throws {
        let pixels = try source("png-rgb-8.png")
        for speed in [0, 9] { #expect(try !ImageEncoder.encode(pixels, as: .avif(quality: 50, speed: speed)).isEmpty) }
        #expect(try !ImageEncoder.encode(pixels, as: .heic(quality: 50, speed: 9)).isEmpty)
        #expect(throws: ImageEncodingError.invalidParameter("AVIF speed 10 is not 0–9")) {
            try ImageEncoder.encode(pixels, as: .avif(quality: 50, speed: 10))
        }
        #expect(throws: ImageEncodingError.invalidParameter("HEIC quality 101 is not 0–100")) {
            try ImageEncoder.encode(pixels, as: .heic(quality: 101))
        }
    }

    @Test("AVIF and HEIC carry an RGB profile as given; a gray one is converted away", arguments: ["avif", "heic"])
    func heifProfiles(name: String) throws {
        let format: EncodingFormat = name == "avif" ? .avif() : .heic()
        let adobe = try #require(try decoder.probe(.file(Fixtures.path("colour/adobe-rgb.png"))).iccProfile)
        let tagged = try ImageEncoder.encode(try source("png-rgb-8.png"), as: format, iccProfile: adobe)
        #expect(try decoder.probe(.data(tagged)).iccProfile?.data == adobe.data)
        let keeping = ImageDecoder(options: DecodeOptions(colorManagement: .keepSourceProfile))
        let gray = try keeping.decode(.file(Fixtures.path("colour/gray-gamma22.jpg")))
        let grayProfile = try #require(gray.iccProfile)
        #expect(gray.pixels.format.isGray)
        #expect(try decoder.probe(.data(try ImageEncoder.encode(gray.pixels, as: format, iccProfile: grayProfile))).iccProfile == nil)
    }

    @Test(
        "a palette PNG of an image of 256 colours or fewer is exact, at the fewest bits, alpha kept",
        arguments: ["png-palette-8.png", "png-palette-trns.png", "png-palette-1.png", "png-gray-2.png"])
    func palettePNGExact(name: String) throws {
        let pixels = try source(name).converted(to: .rgba8)
        let encoded = try ImageEncoder.encode(pixels, as: .palettePNG())
        let decoded = try decoder.decode(.data(encoded))
        #expect(decoded.properties.colorModel == .palette)
        #expect(PixelDifference(decoded.pixels.converted(to: .rgba8), pixels).maximum == 0)
        var colours = Set<[UInt8]>()
        for index in 0..<(pixels.width * pixels.height) { colours.insert(Array(pixels.bytes[index * 4..<index * 4 + 4])) }
        let bits =
            switch colours.count {
            case ...2: 1
            case ...4: 2
            case ...16: 4
            default: 8
            }
        #expect(decoded.properties.bitsPerComponent == bits, "\(colours.count) colours")
    }

    @Test("a photograph quantised to 256 colours stays close; dithering changes the pixels, not the palette size")
    func palettePNGPhoto() throws {
        let pixels = try source("photo-400x300.png")
        let dithered = try decoder.decode(.data(try ImageEncoder.encode(pixels, as: .palettePNG())))
        let flat = try decoder.decode(.data(try ImageEncoder.encode(pixels, as: .palettePNG(dithering: 0))))
        for decoded in [dithered, flat] {
            #expect(decoded.properties.colorModel == .palette && decoded.properties.bitsPerComponent == 8)
            #expect(PixelDifference(decoded.pixels, pixels).psnr > 32)
        }
        #expect(dithered.pixels != flat.pixels)
        #expect(throws: ImageEncodingError.invalidParameter("dithering 1.5 is not 0–1")) {
            try ImageEncoder.encode(pixels, as: .palettePNG(dithering: 1.5))
        }
    }
}
