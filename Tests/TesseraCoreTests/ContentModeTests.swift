import TesseraCore
import Testing

@Suite("Content modes: one geometry and one rounding rule")
struct ContentModeTests {
    private static let landscape = PixelSize(width: 4032, height: 3024)
    private static let square = PixelSize(width: 300, height: 300)

    @Test(
        "fit stays inside the box, fill covers it, centre-crop is the box",
        arguments: [
            (ContentMode.fit, PixelSize(width: 300, height: 225), PixelSize(width: 300, height: 225)),
            (.fill, PixelSize(width: 400, height: 300), PixelSize(width: 400, height: 300)),
            (.centerCrop, PixelSize(width: 400, height: 300), PixelSize(width: 300, height: 300)),
        ])
    func modes(mode: ContentMode, scaled: PixelSize, placed: PixelSize) {
        #expect(Self.landscape.scaled(toward: Self.square, mode: mode) == scaled)
        #expect(Self.landscape.placed(in: Self.square, mode: mode) == placed)
    }

    @Test("sides round to the nearest pixel, never below 1 nor above the cap")
    func rounding() {
        // 1000×333 at 0.3 is 300×99.9: nearest, not truncated.
        #expect(PixelSize(width: 1000, height: 333).scaled(by: 0.3) == PixelSize(width: 300, height: 100))
        // 999×1 → the short side stays 1 pixel rather than vanishing.
        #expect(PixelSize(width: 999, height: 1).fitted(maxPixelSize: 100) == PixelSize(width: 100, height: 1))
        #expect(
            PixelSize(width: 3, height: 3).scaled(by: .infinity)
                == PixelSize(width: PixelSize.maximumScaledSide, height: PixelSize.maximumScaledSide))
        #expect(PixelSize(width: 3, height: 3).scaled(by: 0) == PixelSize(width: 1, height: 1))
    }

    @Test("the binding side lands exactly on the box for awkward ratios")
    func bindingSideIsExact() {
        for width in stride(from: 101, through: 9973, by: 97) {
            let content = PixelSize(width: width, height: 7919)
            for box in [PixelSize(width: 97, height: 89), PixelSize(width: 512, height: 512), PixelSize(width: 33, height: 1000)] {
                let fit = content.scaled(toward: box, mode: .fit)
                #expect(fit.width <= box.width && fit.height <= box.height)
                #expect(fit.width == box.width || fit.height == box.height)
                let fill = content.scaled(toward: box, mode: .fill)
                #expect(fill.width >= box.width && fill.height >= box.height)
                #expect(fill.width == box.width || fill.height == box.height)
                #expect(content.placed(in: box, mode: .centerCrop) == box)
            }
        }
    }

    @Test("without upscaling, small content keeps its size; a centre crop then clips to it")
    func noUpscaling() {
        let small = PixelSize(width: 200, height: 100)
        #expect(small.scaled(toward: Self.square, mode: .fill, allowsUpscaling: false) == small)
        #expect(small.placed(in: Self.square, mode: .centerCrop, allowsUpscaling: false) == PixelSize(width: 200, height: 100))
        #expect(small.scaled(toward: Self.square, mode: .fill) == PixelSize(width: 600, height: 300))
        #expect(small.fitted(maxPixelSize: 500) == small)
        #expect(small.scaledToCover(PixelSize(width: 50, height: 50)) == PixelSize(width: 100, height: 50))
        #expect(small.scaledToCover(nil) == small)
    }

    @Test("centred rectangles: the extra pixel of an odd leftover goes right and down")
    func centering() {
        #expect(PixelSize(width: 401, height: 300).centered(Self.square) == PixelRect(x: 50, y: 0, width: 300, height: 300))
        #expect(
            PixelSize(width: 1920, height: 1080).centered(aspect: PixelSize(width: 1, height: 1))
                == PixelRect(x: 420, y: 0, width: 1080, height: 1080))
        #expect(
            PixelSize(width: 1080, height: 1920).centered(aspect: PixelSize(width: 16, height: 9))
                == PixelRect(x: 0, y: 656, width: 1080, height: 608))
        let buffer = PixelBuffer(width: 4, height: 2, format: .gray8, bytes: Array(0..<8))
        #expect(buffer.centerCropped(to: PixelSize(width: 2, height: 2)).bytes == [1, 2, 5, 6])
        #expect(buffer.centerCropped(to: PixelSize(width: 9, height: 9)).size == buffer.size)
    }

    @Test("the factor is the same for any unit: points of a viewport, pixels of an image")
    func factorInPoints() {
        let factor = ContentMode.fit.scaleFactor(contentWidth: 8000, contentHeight: 2000, boxWidth: 800, boxHeight: 600)
        #expect(factor == 0.1)
        #expect(ContentMode.fill.scaleFactor(for: PixelSize(width: 8000, height: 2000), in: PixelSize(width: 800, height: 600)) == 0.3)
    }
}
