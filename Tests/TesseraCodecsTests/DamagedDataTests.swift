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

    static let intactGIF = Result { try ImageDecoder().decode(.file(Fixtures.path("gif-single.gif"))).pixels }

    /// A still GIF cut inside its (interlaced) image data is shown by default, as browsers show it:
    /// the rows its data reaches exactly, the others transparent; the probe says so and decodes
    /// with alpha. Before, the probe failed ("the GIF ends inside a data block").
    @Test func aStillGIFCutInsideItsDataShowsTheRowsItHolds() throws {
        let path = Self.corpus("gif-cut.gif")
        let properties = try ImageDecoder().probe(.file(path))
        #expect(properties.hasAlpha && properties.decodedFormat == .rgba8)
        #expect(properties.warnings == ["the GIF ends inside its image data: the rows it holds are shown, the rest is transparent"])
        let decoded = try ImageDecoder().decode(.file(path))
        #expect(decoded.isTruncated && decoded.properties.warnings == properties.warnings)
        let intact = try Self.intactGIF.get().converted(to: .rgba8)
        var shown = 0, transparent = 0
        for y in 0..<intact.height {
            let row = Array(decoded.pixels.bytes[(y * intact.bytesPerRow)..<((y + 1) * intact.bytesPerRow)])
            if row == Array(intact.bytes[(y * intact.bytesPerRow)..<((y + 1) * intact.bytesPerRow)]) {
                shown += 1
            } else {
                #expect(row.allSatisfy { $0 == 0 }, "row \(y) is neither the image's nor transparent")
                transparent += 1
            }
        }
        // 40 % of the data: the first two passes (every fourth row) and part of the third.
        #expect(shown >= 12 && transparent >= 12 && decoded.pixels.pixel(x: 0, y: 0).last == 255, "\(shown) rows shown")
        let thumbnail = try Thumbnailer().thumbnail(.file(path), options: ThumbnailOptions(maxPixelSize: 32))
        #expect(thumbnail.isTruncated && thumbnail.pixels.format == .rgba8)
    }

    /// An animation cut inside a later frame plays the whole frames before it.
    @Test func anAnimatedGIFCutInsideAFramePlaysTheFramesBeforeIt() throws {
        let whole = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("gif-animated.gif")))
        let frames = try ImageDecoder().probe(.data(whole)).frameCount
        let cut = whole.prefix(whole.count - 12)  // inside the last frame's data
        let properties = try ImageDecoder().probe(.data(cut))
        #expect(properties.frameCount == frames - 1 && properties.animation?.frameDurations.count == frames - 1)
        #expect(properties.warnings == ["the GIF ends inside frame \(frames): the \(frames - 1) before it are shown"])
        let animation = try AnimatedImage(.data(cut))
        for index in 0..<(frames - 1) { _ = try animation.frame(at: index) }
    }

    /// LZW minimum code sizes of 9 and 11 (Pillow's `issue_2811.gif` has 11): giflib refuses them
    /// (it said "truncated: Failed to read from given file"), browsers and Pillow read them; so does
    /// Tessera now, to the same pixels as the file they were re-encoded from. The 11's table fills
    /// and is cleared on the way.
    @Test(arguments: ["gif-lzw9.gif", "gif-lzw11.gif"])
    func lzwCodeSizesGiflibRefusesAreDecoded(_ name: String) throws {
        let intact = try Self.intactGIF.get()
        let decoded = try ImageDecoder().decode(.file(Self.corpus(name)))
        #expect(!decoded.isTruncated && decoded.properties.warnings.isEmpty)
        for (x, y) in [(0, 0), (intact.width, 0), (0, intact.height), (intact.width, intact.height)]
        where x < decoded.pixels.width && y < decoded.pixels.height {
            let part = try #require(decoded.pixels.cropped(x: x, y: y, width: intact.width, height: intact.height))
            #expect(part == intact, "\(name) at \(x), \(y)")
        }
        // Cut inside its data, it shows the rows decoded before the cut, the rest transparent.
        let cut = try Data(contentsOf: URL(fileURLWithPath: Self.corpus(name))).prefix(2000)
        let partial = try ImageDecoder().decode(.data(cut))
        #expect(partial.isTruncated && partial.pixels.format == .rgba8)
        let rowBytes = decoded.pixels.width * 4
        #expect(partial.pixels.bytes.prefix(rowBytes) == decoded.pixels.converted(to: .rgba8).bytes.prefix(rowBytes))
        #expect(partial.pixels.bytes.suffix(rowBytes).allSatisfy { $0 == 0 })
    }

    /// LZW data that breaks off (a code not yet defined) after some rows shows those rows, the rest
    /// blank, with a warning — through giflib (interlaced) and through Tessera's own decoder.
    @Test(arguments: ["gif-single.gif", "corpus/gif-lzw9.gif"])
    func gifDataThatBreaksOffShowsTheRowsBeforeTheBreak(_ name: String) throws {
        var bytes = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path(name)))
        let intact = try ImageDecoder().decode(.data(bytes)).pixels
        // All ones for a while, two thirds into the data: a code past any the table defines.
        let start = bytes.count * 2 / 3
        for index in start..<(start + 40) { bytes[index] = 0xFF }
        let decoded = try ImageDecoder().decode(.data(bytes))
        #expect(decoded.isTruncated)
        #expect(decoded.properties.warnings.contains { $0.hasPrefix("the GIF's image data breaks off after ") }, "\(decoded.properties.warnings)")
        let rowBytes = intact.bytesPerRow
        #expect(decoded.pixels.bytes.prefix(rowBytes) == intact.bytes.prefix(rowBytes))
        #expect(decoded.pixels.bytes.suffix(rowBytes).allSatisfy { $0 == 0 })
    }
}
