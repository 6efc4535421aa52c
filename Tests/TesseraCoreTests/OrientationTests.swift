import TesseraCore
import Testing

@Suite("Orientation")
struct OrientationTests {
    /// A 3×2 gray image whose pixel values spell out their stored position: 10·row + column.
    let stored = PixelBuffer(width: 3, height: 2, format: .gray8, bytes: [0, 1, 2, 10, 11, 12])

    @Test(
        "each of the eight orientations turns the stored pixels as EXIF defines",
        arguments: [
            (Orientation.up, 3, [0, 1, 2, 10, 11, 12]),
            (.upMirrored, 3, [2, 1, 0, 12, 11, 10]),
            (.down, 3, [12, 11, 10, 2, 1, 0]),
            (.downMirrored, 3, [10, 11, 12, 0, 1, 2]),
            (.leftMirrored, 2, [0, 10, 1, 11, 2, 12]),
            (.right, 2, [10, 0, 11, 1, 12, 2]),
            (.rightMirrored, 2, [12, 2, 11, 1, 10, 0]),
            (.left, 2, [2, 12, 1, 11, 0, 10]),
        ])
    func apply(orientation: Orientation, displayWidth: Int, expected: [UInt8]) {
        let upright = orientation.apply(to: stored)
        #expect(upright.width == displayWidth)
        #expect(upright.size == orientation.displaySize(ofStored: stored.size))
        #expect(upright.bytes == expected)
    }

    @Test("orientations keep every channel of a pixel together")
    func multiChannel() {
        let rgba = PixelBuffer(width: 2, height: 1, format: .rgba8, bytes: [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(Orientation.right.apply(to: rgba).bytes == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(Orientation.upMirrored.apply(to: rgba).bytes == [5, 6, 7, 8, 1, 2, 3, 4])
    }

    @Test("only 5–8 swap width and height; raw values are the EXIF numbers")
    func swaps() {
        #expect(Orientation.allCases.filter(\.swapsDimensions).map(\.rawValue) == [5, 6, 7, 8])
        #expect(Orientation(rawValue: 0) == nil && Orientation(rawValue: 9) == nil)
    }
}
