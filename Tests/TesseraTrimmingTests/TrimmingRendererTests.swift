import TesseraCore
import Testing

@testable import TesseraTrimming

/// Standard geometry at scale 2: 576 × 80 px; the track spans columns 32..<544, 16 px per second;
/// the strip spans rows 8..<72. Eight frames give 64 px cells: cell k is columns 32 + 64k ..< 96 + 64k.
@Suite("Trimming renderer: pixels where the geometry says")
struct TrimmingRendererTests {
    static let handle = TrimmingColor(red: 255, green: 204, blue: 0)
    static let bar = TrimmingColor(red: 0, green: 0, blue: 255)
    static let style = TrimmingSliderStyle(handleColor: handle, gripColor: handle, barColor: bar, dimming: 0.55)
    static let colors: [[UInt8]] = (0..<8).map { (index: Int) -> [UInt8] in
        [UInt8(40 + 20 * index), UInt8(200 - 20 * index), UInt8(60 + 10 * index)]
    }
    static let frames = colors.map { solidFrame($0) }

    /// Lower 8 s (x 80 pt = column 160), upper 24 s (column 416), playhead 12 s (columns 222..<226).
    static let model = TrimmingSliderModel(duration: 32, lower: 8, upper: 24, playhead: 12)

    func expected(frame index: Int, dimmed: Bool = false) -> [Int] {
        Self.colors[index].map { Int((Double($0) * (dimmed ? 0.45 : 1)).rounded()) }
    }

    @Test("the bitmap is the control's size in points times the scale")
    func size() {
        let image = TrimmingSliderRenderer().render(Self.model, geometry: standardGeometry, frames: [], scale: .x2)
        #expect(image.width == 576 && image.height == 80 && image.format == .rgba8)
        let odd = TrimmingSliderGeometry(width: 100.5, height: 30)
        let tall = TrimmingSliderRenderer().render(Self.model, geometry: odd, frames: [], scale: .x3)
        #expect(tall.width == 302 && tall.height == 90)
    }

    @Test("frames inside the selection keep their colour; outside they are dimmed toward black")
    func dimming() {
        let image = TrimmingSliderRenderer(style: Self.style)
            .render(Self.model, geometry: standardGeometry, frames: Self.frames, scale: .x2)
        #expect(close(rgb(image, 260, 40), expected(frame: 3)))
        #expect(close(rgb(image, 80, 40), expected(frame: 0, dimmed: true)))
        #expect(close(rgb(image, 500, 40), expected(frame: 7, dimmed: true)))
        #expect(image.pixel(x: 80, y: 2).last == 0, "no bar outside the selection")
    }

    @Test("the dimming edge is the handle's value line, which is also the frame boundary")
    func dimmingEdge() {
        var style = Self.style
        style.handleColor = .clear
        style.gripColor = .clear
        let image = TrimmingSliderRenderer(style: style)
            .render(Self.model, geometry: standardGeometry, frames: Self.frames, scale: .x2)
        #expect(close(rgb(image, 159, 40), expected(frame: 1, dimmed: true)))
        #expect(close(rgb(image, 160, 40), expected(frame: 2)))
        #expect(close(rgb(image, 415, 40), expected(frame: 5)))
        #expect(close(rgb(image, 416, 40), expected(frame: 6, dimmed: true)))
    }

    @Test("handles, bars and playhead land on the expected pixels at scale 2")
    func chrome() {
        let image = TrimmingSliderRenderer(style: Self.style)
            .render(Self.model, geometry: standardGeometry, frames: Self.frames, scale: .x2)
        let handle = [255, 204, 0]
        for (x, y) in [(128, 40), (159, 40), (130, 0), (130, 79), (416, 40), (447, 40), (440, 79)] {
            #expect(rgb(image, x, y) == handle, "handle pixel (\(x), \(y))")
        }
        #expect(close(rgb(image, 127, 40), expected(frame: 1, dimmed: true)))
        #expect(close(rgb(image, 448, 40), expected(frame: 6, dimmed: true)))
        for (x, y) in [(300, 0), (300, 7), (300, 72), (300, 79), (160, 0), (415, 79)] {
            #expect(rgb(image, x, y) == [0, 0, 255], "bar pixel (\(x), \(y))")
        }
        #expect(close(rgb(image, 300, 8), expected(frame: 4)))
        #expect(rgb(image, 222, 40) == [255, 255, 255] && rgb(image, 225, 71) == [255, 255, 255])
        #expect(close(rgb(image, 221, 40), expected(frame: 2)) && close(rgb(image, 226, 40), expected(frame: 3)))
    }

    @Test("frames are centre-cropped to fill their cell, never squashed")
    func cropNotSquash() {
        // Wide: red then blue, split at 175 of 400 columns. The square centre crop (columns
        // 150..<250) puts the split a quarter of the way across the cell (column 16 of 64);
        // squashing would put it at 28. Tall: the same split along rows.
        let red: [UInt8] = [255, 0, 0], blue: [UInt8] = [0, 0, 255]
        var wideBytes: [UInt8] = []
        for _ in 0..<100 {
            for column in 0..<400 { wideBytes += (column < 175 ? red : blue) + [255] }
        }
        var tallBytes: [UInt8] = []
        for row in 0..<400 {
            for _ in 0..<100 { tallBytes += row < 175 ? red : blue }
        }
        let wide = PixelBuffer(width: 400, height: 100, format: .rgba8, bytes: wideBytes)
        let tall = PixelBuffer(width: 100, height: 400, format: .rgb8, bytes: tallBytes)
        let gray = solidFrame([128, 128, 128])
        let model = TrimmingSliderModel(duration: 32, lower: 0, upper: 32, playhead: 32)
        let image = TrimmingSliderRenderer(style: Self.style).render(
            model, geometry: standardGeometry, frames: [gray, wide, tall] + Array(repeating: gray, count: 5), scale: .x2)
        let redPixel = red.map(Int.init), bluePixel = blue.map(Int.init)
        #expect(close(rgb(image, 96 + 8, 40), redPixel))
        #expect(close(rgb(image, 96 + 22, 40), bluePixel), "squashed, this column would still be red")
        #expect(close(rgb(image, 96 + 40, 40), bluePixel))
        #expect(close(rgb(image, 192, 8 + 8), redPixel))
        #expect(close(rgb(image, 192, 8 + 22), bluePixel), "squashed, this row would still be red")
        #expect(close(rgb(image, 192, 8 + 50), bluePixel))
    }
}
