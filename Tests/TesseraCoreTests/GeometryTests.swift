import TesseraCore
import Testing

@Suite("Sizes, scales and pixel buffers")
struct GeometryTests {
    @Test(
        "points × scale = pixels",
        arguments: [
            (PointSize(width: 100, height: 100), DisplayScale.x3, PixelSize(width: 300, height: 300)),
            (PointSize(width: 100, height: 50), .x2, PixelSize(width: 200, height: 100)),
            (PointSize(width: 33.5, height: 10), .x1, PixelSize(width: 34, height: 10)),
        ])
    func pointsToPixels(points: PointSize, scale: DisplayScale, pixels: PixelSize) {
        #expect(points.pixels(at: scale) == pixels)
    }

    @Test("decoded memory is width × height × bytes per pixel")
    func byteCounts() {
        #expect(PixelSize(width: 6000, height: 4000).byteCount(in: .rgba8) == 96_000_000)
        #expect(PixelSize(width: 2048, height: 1536).byteCount(in: .rgba8) == 12_582_912)
        #expect(PixelSize(width: 10, height: 10).byteCount(in: .gray8) == 100)
        #expect(PixelSize(width: 10, height: 10).byteCount(in: .grayAlpha8) == 200)
        #expect(PixelSize(width: 10, height: 10).byteCount(in: .rgb8) == 300)
        #expect(PixelSize(width: .max / 2, height: 4).area == .max)
        let buffer = PixelBuffer(width: 7, height: 3, format: .grayAlpha8)
        #expect(buffer.bytesPerRow == 14 && buffer.byteCount == 42 && buffer.bytes.count == 42)
    }

    @Test("format conversion: luma for gray, opaque alpha added, alpha removed over black")
    func conversion() {
        let rgba = PixelBuffer(width: 2, height: 1, format: .rgba8, bytes: [255, 0, 0, 255, 200, 100, 50, 0])
        #expect(rgba.converted(to: .rgb8).bytes == [255, 0, 0, 0, 0, 0])
        #expect(rgba.converted(to: .grayAlpha8).bytes == [76, 255, 124, 0])
        let gray = PixelBuffer(width: 1, height: 1, format: .gray8, bytes: [90])
        #expect(gray.converted(to: .rgba8).bytes == [90, 90, 90, 255])
        #expect(PixelFormat.rgb8.withAlpha(true) == .rgba8 && PixelFormat.grayAlpha8.withAlpha(false) == .gray8)
    }

    @Test("cropping takes the rectangle asked for and refuses one reaching outside")
    func cropping() {
        let buffer = PixelBuffer(width: 3, height: 3, format: .gray8, bytes: Array(0..<9))
        #expect(buffer.cropped(x: 1, y: 1, width: 2, height: 2)?.bytes == [4, 5, 7, 8])
        #expect(buffer.cropped(x: 2, y: 0, width: 2, height: 1) == nil)
        #expect(buffer.cropped(x: 0, y: 0, width: 0, height: 1) == nil)
    }

    @Test("pixel access addresses rows and columns")
    func pixelAccess() {
        let buffer = PixelBuffer(width: 2, height: 2, format: .rgb8, bytes: Array(0..<12))
        #expect(Array(buffer.pixel(x: 1, y: 1)) == [9, 10, 11])
        #expect(buffer.withRow(1) { Array($0) } == [6, 7, 8, 9, 10, 11])
    }

    @Test("printf-style formatting without Foundation, long results included")
    func cFormat() {
        #expect(String(cFormat: "%03d-%.1f|%5.1f%%|%02x|%-4d|", 7, 2.25, 99.94, 255, 42) == "007-2.2| 99.9%|ff|42  |")
        let long = String(cFormat: "%0300d", 1)
        #expect(long.count == 300 && long.hasSuffix("01") && long.hasPrefix("000"))
        #expect(String(cFormat: "plain") == "plain")
    }
}
