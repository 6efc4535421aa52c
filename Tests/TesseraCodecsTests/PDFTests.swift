import Foundation
import TesseraCore
import Testing

@testable import TesseraCodecs

/// PDF pages through poppler-glib (Tests/Fixtures/pdf, made by scripts/make-pdf-fixtures.py: solid
/// shapes whose insides render exactly).
@Suite("PDF pages")
struct PDFTests {
    static let twoPages = Fixtures.path("pdf/two-pages.pdf")
    /// A 144×216 pt page filled by a 600×900 image: 300 dpi.
    static let scanned = Fixtures.path("pdf/scanned-300dpi.pdf")

    /// The scan's pixel at (x, y) from the top left (scripts/make-pdf-fixtures.py's `pattern`).
    static func pattern(_ x: Int, _ y: Int) -> [UInt8] {
        if x % 50 == 0 { return [255, 0, 0] }
        if y % 50 == 0 { return [0, 0, 255] }
        return (x / 3 + y / 3) % 2 == 0 ? [255, 255, 255] : [0, 0, 0]
    }

    func rgb(_ pixels: PixelBuffer, _ x: Int, _ y: Int) -> [UInt8] { Array(pixels.pixel(x: x, y: y)) }

    @Test("a probe names the format, the page count and the page's size in points, for any page")
    func probe() throws {
        let first = try ImageDecoder().probe(.file(Self.twoPages))
        #expect(first.format == .pdf && first.frameCount == 2)
        #expect(first.size == PixelSize(width: 612, height: 792) && first.pageSize == PointSize(width: 612, height: 792))
        #expect(!first.hasAlpha && first.decodedFormat == .rgb8)
        let second = try ImageDecoder(options: DecodeOptions(pageIndex: 1)).probe(.file(Self.twoPages))
        #expect(second.size == PixelSize(width: 300, height: 200) && second.frameCount == 2)
        #expect(throws: ImageDecodingError.noSuchPage(index: 2, count: 2)) {
            try ImageDecoder(options: DecodeOptions(pageIndex: 2)).probe(.file(Self.twoPages))
        }
        #expect(ImageDecodingError.noSuchPage(index: 2, count: 2).category == .notFound)
    }

    @Test("page 1 renders at 72 dpi on white paper, each shape in its own colour, y down")
    func decode() throws {
        let pixels = try ImageDecoder().decode(.file(Self.twoPages)).pixels
        #expect(pixels.size == PixelSize(width: 612, height: 792) && pixels.format == .rgb8)
        // PDF's origin is the lower-left corner: the red quarter is at the bottom left of the image.
        #expect(rgb(pixels, 100, 700) == [255, 0, 0])
        #expect(rgb(pixels, 500, 100) == [0, 0, 255])
        #expect(rgb(pixels, 100, 100) == [255, 255, 255] && rgb(pixels, 500, 700) == [255, 255, 255])
    }

    @Test("a thumbnail renders the page at the target size, not shrunk from a full-size bitmap")
    func thumbnail() throws {
        let options = ThumbnailOptions(sizing: .fit(maxPixelSize: 60), pageIndex: 1)
        let result = try Thumbnailer().thumbnail(.file(Self.twoPages), options: options)
        #expect(result.pixels.size == PixelSize(width: 60, height: 40))
        #expect(result.decodeScale == 5)
        #expect(result.peakWorkingByteCount < 300 * 200 * 3)
        // The black box (50…150 × 50…100 pt from the bottom left) is at 10…30 × 20…30 px from the top.
        #expect(rgb(result.pixels, 20, 25) == [0, 0, 0])
        #expect(rgb(result.pixels, 50, 10) == [0, 255, 0])
    }

    @Test("vector art is drawn at the size asked for, larger than its nominal size too")
    func enlarged() throws {
        let page = try Thumbnailer().thumbnail(.file(Self.twoPages), options: ThumbnailOptions(sizing: .fit(maxPixelSize: 900), pageIndex: 1))
        #expect(page.pixels.size == PixelSize(width: 900, height: 600))
        // Sharp, not resampled up: the black box's edge (x = 50 pt = 150 px) is one step wide.
        #expect(rgb(page.pixels, 149, 400) == [0, 255, 0] && rgb(page.pixels, 150, 400) == [0, 0, 0])
        let svg = try Thumbnailer().thumbnail(.file(Fixtures.path("svg-size.svg")), options: ThumbnailOptions(maxPixelSize: 500))
        #expect(svg.pixels.size.longestSide == 500)
        // Bitmaps are never enlarged.
        let bitmap = try Thumbnailer().thumbnail(.file(Fixtures.path("photo-400x300.png")), options: ThumbnailOptions(maxPixelSize: 500))
        #expect(bitmap.pixels.size == PixelSize(width: 400, height: 300))
    }

    @Test("a 40-gigapixel page thumbnails in bounded memory; a full decode is refused before rendering")
    func hugePage() throws {
        let path = Fixtures.path("pdf/huge-page.pdf")
        let result = try Thumbnailer().thumbnail(.file(path), options: ThumbnailOptions(maxPixelSize: 100))
        #expect(result.pixels.size == PixelSize(width: 100, height: 100))
        #expect(rgb(result.pixels, 50, 50) == [128, 128, 128])
        #expect(throws: ImageDecodingError.tooLarge(pixels: 200_000 * 200_000, limit: DecodeOptions.defaultMaximumPixelCount)) {
            try ImageDecoder().decode(.file(path))
        }
    }

    @Test("a PDF page whose embedded image is 300 dpi is offered at that resolution")
    func scannedPage() throws {
        let probe = try ImageDecoder().probe(.file(Self.scanned))
        #expect(probe.size == PixelSize(width: 600, height: 900) && probe.pageSize == PointSize(width: 144, height: 216))
        #expect(try ImageDecoder().pageSizes(.file(Self.scanned)) == [PixelSize(width: 600, height: 900)])
        let pixels = try ImageDecoder().decode(.file(Self.scanned)).pixels
        try #require(pixels.size == PixelSize(width: 600, height: 900))
        var differing = 0
        for y in stride(from: 0, to: 900, by: 3) {
            for x in 0..<600 where zip(rgb(pixels, x, y), Self.pattern(x, y)).contains(where: { abs(Int($0) - Int($1)) > 32 }) {
                differing += 1
            }
        }
        #expect(differing <= 600 * 300 / 100, "\(differing) of \(600 * 300) pixels differ from the scan")
    }

    @Test("a PDF page's resolution is bounded: by the maximum dpi, by the pixel limit; a page without images at the minimum dpi")
    func resolutionBounds() throws {
        var options = DecodeOptions()
        options.pdfMaximumDPI = 150
        #expect(try ImageDecoder(options: options).probe(.file(Self.scanned)).size == PixelSize(width: 300, height: 450))
        let limited = try ImageDecoder(options: DecodeOptions(maximumPixelCount: 100_000)).probe(.file(Self.scanned)).size
        #expect(limited == PixelSize(width: 258, height: 387) && limited.area <= 100_000)
        // Vector pages stay at 72 dpi unless told otherwise.
        #expect(try ImageDecoder().pageSizes(.file(Self.twoPages)) == [PixelSize(width: 612, height: 792), PixelSize(width: 300, height: 200)])
        options = DecodeOptions()
        options.pdfMinimumDPI = 144
        #expect(
            try ImageDecoder(options: options).pageSizes(.file(Self.twoPages)) == [
                PixelSize(width: 1224, height: 1584), PixelSize(width: 600, height: 400),
            ])
        // A scan finer than the minimum keeps its own resolution.
        #expect(try ImageDecoder(options: options).probe(.file(Self.scanned)).size == PixelSize(width: 600, height: 900))
    }

    @Test("damaged documents are typed errors, from a file and from memory")
    func damaged() throws {
        let truncated = Fixtures.path("pdf/truncated.pdf")
        #expect(throws: ImageDecodingError.self) { try ImageDecoder().probe(.file(truncated)) }
        let data = try Data(contentsOf: URL(fileURLWithPath: truncated))
        #expect {
            try ImageDecoder().decode(.data(data))
        } throws: { error in
            (error as? ImageDecodingError)?.category == .corrupt
        }
        #expect(throws: ImageDecodingError.self) { try ImageDecoder().probe(.data(Data("%PDF-1.7\n%%EOF\n".utf8))) }
    }
}
