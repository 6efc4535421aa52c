import Foundation
import TesseraCore
import Testing

@testable import TesseraCodecs

/// PNG at levels 1 and 2 (libdeflate, Sub-filtered rows): any decoder reads back the same pixels
/// and the same embedded profile, in every pixel format; smaller than the pixels for smooth images.
@Suite struct FastPNGTests {
    static func pixels(_ format: PixelFormat, width: Int = 61, height: Int = 37) -> PixelBuffer {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<(width * height * format.bytesPerPixel)).map { index in
            // Half smooth (a ramp), half noise: both the filter's and the compressor's paths.
            index % 7 < 4 ? UInt8(truncatingIfNeeded: index / 3) : UInt8.random(in: 0...255, using: &generator)
        }
        return PixelBuffer(width: width, height: height, format: format, bytes: bytes)
    }

    @Test(arguments: PixelFormat.allCases, [1, 2])
    func pixelsComeBackExactly(_ format: PixelFormat, level: Int) throws {
        let image = Self.pixels(format)
        let data = try #require(try FastPNGWriter.encode(image, profile: nil))
        #expect(try ImageEncoder.encode(image, as: .png(compressionLevel: level)) == data)
        let decoded = try ImageDecoder().decode(.data(data)).pixels
        #expect(decoded.format == format && decoded.size == image.size)
        #expect(decoded.bytes == image.bytes)
    }

    @Test func theProfileIsEmbeddedAndASmoothImageShrinks() throws {
        let profile = try ICCProfile(validating: Array(try Data(contentsOf: URL(fileURLWithPath: "/usr/share/color/icc/colord/AdobeRGB1998.icc"))))
        let ramp = PixelBuffer(width: 256, height: 256, format: .rgb8, bytes: (0..<(256 * 256 * 3)).map { UInt8(truncatingIfNeeded: $0 / 768) })
        let data = try ImageEncoder.encode(ramp, as: .png(compressionLevel: 1), iccProfile: profile)
        let decoded = try ImageDecoder(options: DecodeOptions(colorManagement: .keepSourceProfile)).decode(.data(data))
        #expect(decoded.properties.iccProfile?.data == profile.data)
        #expect(decoded.pixels.bytes == ramp.bytes)
        #expect(data.count < ramp.bytes.count / 20)
    }
}
