import Foundation
import TesseraCore
import Testing

@testable import TesseraCodecs

/// Damaged files shown as browsers and libpng-based tools show them: what decodes, with a warning
/// (Tests/Fixtures/corpus, made by scripts/make-corpus-fixtures.py from png-rgb-8.png and
/// gif-single.gif).
@Suite("Damaged data")
struct DamagedDataTests {
    static func corpus(_ name: String) -> String { Fixtures.path("corpus/" + name) }

    static let intactPNG = Result { try ImageDecoder().decode(.file(Fixtures.path("png-rgb-8.png"))).pixels }

    /// Pillow's `broken_data_stream.png`, rebuilt: row 30 has a filter type that does not exist, the
    /// IDAT's length stops short of its zlib stream (whose rest stands where the CRC and the next
    /// chunk should), and there is no IEND. libpng fails at row 30: the rows before it are shown
    /// exactly, the rest blank, and the decode says so; the probe says what it skipped.
    @Test func aPNGWhoseDataBreaksOffShowsTheRowsBeforeTheBreak() throws {
        let intact = try Self.intactPNG.get()
        let properties = try ImageDecoder().probe(.file(Self.corpus("png-filter-damaged.png")))
        #expect(properties.warnings.contains { $0.contains("no chunk after its image data") }, "\(properties.warnings)")
        let decoded = try ImageDecoder().decode(.file(Self.corpus("png-filter-damaged.png")))
        #expect(decoded.isTruncated && decoded.pixels.size == intact.size && decoded.pixels.format == intact.format)
        let rowBytes = intact.bytesPerRow
        #expect(decoded.pixels.bytes.prefix(30 * rowBytes) == intact.bytes.prefix(30 * rowBytes))
        #expect(decoded.pixels.bytes.dropFirst(30 * rowBytes).allSatisfy { $0 == 0 })
        #expect(decoded.properties.warnings.contains { $0.contains("breaks off after 30 of its 48 rows") }, "\(decoded.properties.warnings)")
        // Every other path that reads rows gets as far.
        let thumbnail = try Thumbnailer().thumbnail(.file(Self.corpus("png-filter-damaged.png")), options: ThumbnailOptions(maxPixelSize: 32))
        #expect(thumbnail.isTruncated && thumbnail.pixels.size == PixelSize(width: 32, height: 24))
    }

    /// An IDAT whose CRC fails, its data intact (zlib's own checksum still holds): decoded whole,
    /// as libvips and browsers decode it, with a warning.
    @Test func anImageDataChunkWhoseCRCFailsIsDecodedAllTheSame() throws {
        let decoded = try ImageDecoder().decode(.file(Self.corpus("png-idat-crc.png")))
        #expect(decoded.pixels == (try Self.intactPNG.get()))
        #expect(!decoded.isTruncated)
        #expect(decoded.properties.warnings.contains { $0.contains("IDAT: CRC error") }, "\(decoded.properties.warnings)")
    }

    /// Bytes that are no chunk after the image data (no IEND): libpng never reads them, and the
    /// probe stops there with a warning instead of refusing the file.
    @Test func junkAfterTheImageDataIsIgnored() throws {
        let properties = try ImageDecoder().probe(.file(Self.corpus("png-trailing-junk.png")))
        #expect(properties.warnings.count == 1 && properties.warnings[0].contains("no chunk after its image data"))
        let decoded = try ImageDecoder().decode(.file(Self.corpus("png-trailing-junk.png")))
        #expect(decoded.pixels == (try Self.intactPNG.get()) && !decoded.isTruncated)
    }
}
