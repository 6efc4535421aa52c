import TesseraCore
import Testing

@testable import TesseraCodecs

@Suite("EXIF orientation read from files and applied to their pixels")
struct OrientationFixtureTests {
    let decoder = ImageDecoder()

    static let files =
        (1...8).map { "jpeg-orientation-\($0).jpg" }
        + ["png-exif-orientation-6.png", "webp-exif-orientation-6.webp", "tiff-orientation-6.tif"]

    @Test("each stored image turned by its orientation equals the upright reference", arguments: files)
    func uprightMatchesReference(name: String) throws {
        let upright = try decoder.decode(.file(Fixtures.path("upright-reference.png"))).pixels
        let decoded = try decoder.decode(.file(Fixtures.path(name)))
        let turned = decoded.properties.orientation.apply(to: decoded.pixels)
        #expect(decoded.properties.displaySize == upright.size)
        #expect(turned.size == upright.size)
        guard turned.size == upright.size else { return }
        let difference = PixelDifference(turned.converted(to: upright.format), upright)
        // JPEG at quality 95 and lossy WebP blur edges a little; a wrong turn moves whole blocks.
        #expect(difference.mean < 6, "\(difference)")
    }
}
