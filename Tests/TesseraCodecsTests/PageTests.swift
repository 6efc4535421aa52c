import Foundation
import TesseraCore
import Testing

@testable import TesseraCodecs

/// Documents of several pages: a multi-page TIFF's images, a PDF's pages (Tests/Fixtures/pages,
/// made by scripts/make-page-fixtures.py: each page one solid colour; Tests/Fixtures/pdf).
@Suite("Pages of documents")
struct PageTests {
    static let threePages = Fixtures.path("pages/three-pages.tif")
    static let pyramidAndLabel = Fixtures.path("pages/pyramid-and-label.tif")

    func page(_ path: String, _ index: Int) throws -> DecodedImage {
        try ImageDecoder(options: DecodeOptions(pageIndex: index)).decode(.file(path))
    }

    @Test("each image of a multi-page TIFF is a page: probed, sized and decoded on its own")
    func multiPageTIFF() throws {
        let colours: [[UInt8]] = [[255, 0, 0], [0, 255, 0], [0, 0, 255]]
        let sizes = [PixelSize(width: 96, height: 64), PixelSize(width: 40, height: 30), PixelSize(width: 20, height: 24)]
        for index in 0..<3 {
            let probed = try ImageDecoder(options: DecodeOptions(pageIndex: index)).probe(.file(Self.threePages))
            #expect(probed.pageCount == 3 && probed.size == sizes[index])
            let decoded = try page(Self.threePages, index)
            #expect(decoded.pixels.size == sizes[index])
            #expect(Array(decoded.pixels.pixel(x: sizes[index].width - 1, y: sizes[index].height - 1)) == colours[index])
        }
        #expect(try ImageDecoder().pageSizes(.file(Self.threePages)) == sizes)
        #expect(throws: ImageDecodingError.noSuchPage(index: 3, count: 3)) { try page(Self.threePages, 3) }
    }

    @Test("a pyramid's reduced levels and masks are not pages, flagged or not; a label after it is")
    func pyramidLevelsAreNotPages() throws {
        let probed = try ImageDecoder().probe(.file(Self.pyramidAndLabel))
        #expect(probed.pageCount == 2 && probed.size == PixelSize(width: 64, height: 48))
        #expect(try ImageDecoder().pageSizes(.file(Self.pyramidAndLabel)) == [PixelSize(width: 64, height: 48), PixelSize(width: 40, height: 20)])
        let label = try page(Self.pyramidAndLabel, 1)
        #expect(label.pixels.size == PixelSize(width: 40, height: 20) && Array(label.pixels.pixel(x: 0, y: 0)) == [255, 255, 0])
        // The first page still reads as the pyramid it is.
        #expect(try TIFFPyramid(path: Self.pyramidAndLabel)?.levelSizes.count == 3)
    }

    @Test("each top-level image of a HEIF collection is a page, the primary image first")
    func heifCollection() throws {
        let path = Fixtures.path("pages/two-images.heic")
        #expect(try ImageDecoder().probe(.file(path)).pageCount == 2)
        #expect(try ImageDecoder().pageSizes(.file(path)) == [PixelSize(width: 32, height: 40), PixelSize(width: 64, height: 48)])
        // Lossy: blue and red within a few levels.
        let primary = try page(path, 0).pixels, other = try page(path, 1).pixels
        let blue = Array(primary.pixel(x: 5, y: 5)), red = Array(other.pixel(x: 5, y: 5))
        #expect(primary.size == PixelSize(width: 32, height: 40) && blue[2] > 240 && blue[0] < 16)
        #expect(other.size == PixelSize(width: 64, height: 48) && red[0] > 240 && red[2] < 16)
        #expect(throws: ImageDecodingError.noSuchPage(index: 2, count: 2)) { try page(path, 2) }
    }

    @Test("a PDF's page sizes come from one open; an image that is no document has one page only")
    func pageSizesAndSinglePages() throws {
        #expect(
            try ImageDecoder().pageSizes(.file(Fixtures.path("pdf/two-pages.pdf")))
                == [PixelSize(width: 612, height: 792), PixelSize(width: 300, height: 200)])
        let photo = Fixtures.path("photo-400x300.png")
        #expect(try ImageDecoder().probe(.file(photo)).pageCount == 1)
        #expect(try ImageDecoder().pageSizes(.file(photo)) == [PixelSize(width: 400, height: 300)])
        #expect(throws: ImageDecodingError.noSuchPage(index: 1, count: 1)) { try page(photo, 1) }
        // Turned images report their pages upright.
        #expect(
            try ImageDecoder().pageSizes(.file(Fixtures.path("tiff-orientation-6.tif"))).first?.width
                == (try ImageDecoder().probe(.file(Fixtures.path("tiff-orientation-6.tif")))).displaySize.width)
    }
}
