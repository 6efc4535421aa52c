import TesseraCore
import TesseraViewing
import Testing

@testable import TesseraTiles

@Suite("Tile layout math")
struct LayoutTests {
    @Test("Deep Zoom of a 1×1 image is one level of one tile")
    func deepZoomSinglePixel() {
        let layout = DeepZoomLayout(imageSize: PixelSize(width: 1, height: 1), name: "a")
        #expect(layout.maxLevel == 0 && layout.levelCount == 1)
        #expect(layout.columnSpans(reduction: 0) == [0..<1])
        #expect(layout.allTilePaths(fileExtension: "jpeg") == ["a_files/0/0_0.jpeg"])
    }

    @Test("Deep Zoom 255×255: overlap only on sides with a neighbour, clipped at the edge")
    func deepZoom255() {
        let layout = DeepZoomLayout(imageSize: PixelSize(width: 255, height: 255), name: "a")
        #expect(layout.maxLevel == 8)
        #expect(layout.columnSpans(reduction: 0) == [0..<255, 253..<255])
        #expect(layout.levelSize(reduction: 1) == PixelSize(width: 128, height: 128))
        #expect(layout.columnSpans(reduction: 1) == [0..<128])
        #expect(layout.tilePath(reduction: 0, column: 1, row: 0, fileExtension: "jpeg") == "a_files/8/1_0.jpeg")
    }

    @Test("Deep Zoom 256×257: one more level, interior tiles 256 with overlap, odd sizes round up")
    func deepZoom256x257() {
        let layout = DeepZoomLayout(imageSize: PixelSize(width: 256, height: 257), name: "a")
        #expect(layout.maxLevel == 9 && layout.levelCount == 10)
        #expect(layout.columnSpans(reduction: 0) == [0..<255, 253..<256])
        #expect(layout.rowSpans(reduction: 0) == [0..<255, 253..<257])
        #expect(layout.levelSize(reduction: 1) == PixelSize(width: 128, height: 129))
        #expect(layout.levelSize(reduction: 9) == PixelSize(width: 1, height: 1))
        let wide = DeepZoomLayout(imageSize: PixelSize(width: 1000, height: 10), name: "a")
        #expect(wide.columnSpans(reduction: 0) == [0..<255, 253..<509, 507..<763, 761..<1000])
        #expect(wide.columnSpans(reduction: 0).dropFirst().dropLast().allSatisfy { $0.count == 256 })
    }

    @Test("level sizes are ceil(size / 2^k), the same as repeated (w + 1) / 2")
    func levelSizes() {
        let layout = DeepZoomLayout(imageSize: PixelSize(width: 1001, height: 3), name: "a")
        #expect(layout.maxLevel == 10)
        #expect(
            (0..<layout.levelCount).map { layout.levelSize(reduction: $0).width }
                == [1001, 501, 251, 126, 63, 32, 16, 8, 4, 2, 1])
        for k in 0..<layout.levelCount {
            #expect(layout.levelSize(reduction: k).width == Int((1001.0 / Double(1 << k)).rounded(.up)))
        }
    }

    @Test("IIIF regions and sizes follow the Image API implementation notes")
    func iiif() {
        let layout = IIIFLayout(imageSize: PixelSize(width: 400, height: 300), name: "img", tileSize: 256)
        #expect(layout.scaleFactors == [1, 2])
        #expect(
            Set(layout.allTilePaths(fileExtension: "jpg")) == [
                "img/0,0,256,256/256,256/0/default.jpg", "img/256,0,144,256/144,256/0/default.jpg",
                "img/0,256,256,44/256,44/0/default.jpg", "img/256,256,144,44/144,44/0/default.jpg",
                "img/0,0,400,300/200,150/0/default.jpg",
            ])
        #expect(layout.aliasPaths(reduction: 1, column: 0, row: 0, fileExtension: "jpg") == ["img/full/200,150/0/default.jpg"])
        #expect(layout.aliasPaths(reduction: 0, column: 0, row: 0, fileExtension: "jpg").isEmpty)
        let odd = IIIFLayout(imageSize: PixelSize(width: 1001, height: 1001), name: "i", tileSize: 512)
        // s = 2: the whole width in one tile, 1001 / 2 rounded up.
        #expect(odd.tilePath(reduction: 1, column: 0, row: 0, fileExtension: "jpg") == "i/0,0,1001,1001/501,501/0/default.jpg")
        #expect(odd.tilePath(reduction: 0, column: 1, row: 1, fileExtension: "jpg") == "i/512,512,489,489/489,489/0/default.jpg")
    }

    @Test("XYZ anchors the image top-left in a square world and pads tiles; th numbers levels from 1")
    func xyzAndTH() {
        let xyz = XYZLayout(imageSize: PixelSize(width: 600, height: 300), name: "m")
        #expect(xyz.maxZoom == 2)
        #expect(xyz.columnSpans(reduction: 0).count == 3 && xyz.rowSpans(reduction: 0).count == 2)
        #expect(xyz.tilePath(reduction: 0, column: 2, row: 1, fileExtension: "jpg") == "m/2/2/1.jpg")
        #expect(xyz.tilePath(reduction: 2, column: 0, row: 0, fileExtension: "jpg") == "m/0/0/0.jpg")
        #expect(xyz.paddedTileSize == PixelSize(width: 256, height: 256))
        let th = THTiledLayout(imageSize: PixelSize(width: 600, height: 300), name: "m")
        #expect(th.levelCount == 3)
        #expect(th.tilePath(reduction: 0, column: 1, row: 0, fileExtension: "jpg") == "m/256/m_256_3_1_0.jpg")
        #expect(th.tilePath(reduction: 2, column: 0, row: 0, fileExtension: "jpg") == "m/256/m_256_1_0_0.jpg")
    }
}
