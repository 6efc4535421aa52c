import Foundation
import TesseraCore
import Testing

@testable import TesseraCodecs

/// TIFF layouts found on public test corpora (Tests/Fixtures/corpus, made by
/// scripts/make-corpus-fixtures.py): CMYK in 8 and 16 bits, 32-bit integer gray, 16-bit CIELab and
/// 8- and 16-bit ICCLab.
@Suite("TIFF sample layouts")
struct TIFFSampleLayoutTests {
    static func corpus(_ name: String) -> String { Fixtures.path("corpus/" + name) }

    /// The same inks as a TIFF and as a CMYK JPEG (Adobe's, untagged) give the same colours: both go
    /// through the SWOP profile untagged CMYK is taken to be in, not libtiff's naive formula (ΔE2000
    /// 12 on average from it) — in every path that makes pixels.
    @Test(arguments: ["cmyk-8.tif", "cmyk-16le.tif"])
    func untaggedCMYKGetsTheColoursOfTheSameInksInAJPEG(_ name: String) throws {
        let jpeg = try ImageDecoder().decode(.file(Fixtures.path("colour/cmyk-noprofile.jpg"))).pixels
        let decoded = try ImageDecoder().decode(.file(Self.corpus(name)))
        #expect(decoded.properties.colorModel == .cmyk && decoded.iccProfile == nil)
        let reader = try ImageRowReader(.file(Self.corpus(name)))
        var rows: [UInt8] = []
        try reader.forEachRow { rows += $0 }
        let streamed = PixelBuffer(width: jpeg.width, height: jpeg.height, format: reader.format, bytes: rows)
        for (path, pixels) in [("decoded", decoded.pixels), ("rows", streamed)] {
            let difference = PixelDifference(pixels, jpeg)
            #expect(difference.maximum <= 1, "\(name) \(path) against the JPEG: \(difference)")
        }
        // And both are what LittleCMS makes of the inks through that profile (Pillow's ImageCms).
        let reference = try ImageDecoder().decode(.file(Fixtures.path("colour/reference/cmyk-noprofile.jpg.png"))).pixels
        let difference = colourDifference(decoded.pixels, reference)
        #expect(difference.mean <= 1 && difference.p99 <= 3, "\(name): ΔE2000 mean \(difference.mean), p99 \(difference.p99)")
    }

    /// libjpeg reads 8-bit JPEG only, so a TIFF whose JPEG strips claim 16-bit samples is refused
    /// as unsupported, from the header, without the file's path in the reason.
    @Test func jpegStripsOfSixteenBitSamplesAreUnsupported() {
        let path = Self.corpus("cmyk-16-jpeg.tif")
        for attempt in [{ _ = try ImageDecoder().probe(.file(path)) }, { _ = try ImageDecoder().decode(.file(path)) }] as [() throws -> Void] {
            #expect { try attempt() } throws: { error in
                guard case ImageDecodingError.unsupported(let reason) = error else { return false }
                return reason.contains("16-bit") && !reason.contains("corpus")
            }
        }
    }

    /// 32-bit integer gray is reduced to the high byte of its range, as 16-bit samples are to theirs:
    /// pixel `16·y + x` of each fixture is stored so that that is its high byte (signed: of 0…2³¹ − 1,
    /// the most negative value black).
    @Test(arguments: ["gray32-uint.tif", "gray32-int.tif"])
    func thirtyTwoBitIntegerGrayIsReducedToItsHighByte(_ name: String) throws {
        let properties = try ImageDecoder().probe(.file(Self.corpus(name)))
        #expect(properties.bitsPerComponent == 32 && properties.decodedFormat == .gray8)
        let decoded = try ImageDecoder().decode(.file(Self.corpus(name))).pixels
        #expect(decoded.format == .gray8)
        #expect(decoded.bytes == (0..<256).map(UInt8.init), "\(name): \(decoded.bytes.prefix(20))")
    }

    /// 16-bit CIELab, and 8- and 16-bit ICCLab, convert to sRGB: each fixture holds the Lab of a grid
    /// of sRGB colours (computed in floating point by the script), which must come back. libtiff's
    /// own Lab conversion (no chromatic adaptation) is 5 ΔE2000 off on average; ICCLab it refuses.
    @Test(arguments: ["lab16-cielab.tif", "lab16-icclab.tif", "lab8-icclab.tif"])
    func labConvertsToTheSRGBItWasMadeFrom(_ name: String) throws {
        let properties = try ImageDecoder().probe(.file(Self.corpus(name)))
        #expect(properties.iccProfile == nil && properties.warnings.isEmpty)
        let decoded = try ImageDecoder().decode(.file(Self.corpus(name)))
        #expect(decoded.pixels.format == .rgb8 && decoded.iccProfile == nil)
        var colours: [UInt8] = []
        for y in 0..<12 {
            for x in 0..<16 { colours += [UInt8(17 * x), UInt8(23 * y), UInt8((7 * x + 13 * y) % 256)] }
        }
        let reference = PixelBuffer(width: 16, height: 12, format: .rgb8, bytes: colours)
        let difference = colourDifference(decoded.pixels, reference)
        #expect(difference.mean <= 0.5 && difference.p99 <= 2, "\(name): ΔE2000 mean \(difference.mean), p99 \(difference.p99)")
        // Kept profiles change nothing: no pixel format holds Lab.
        let kept = try ImageDecoder(options: DecodeOptions(colorManagement: .keepSourceProfile)).decode(.file(Self.corpus(name)))
        #expect(kept.pixels == decoded.pixels && kept.iccProfile == nil)
    }
}
