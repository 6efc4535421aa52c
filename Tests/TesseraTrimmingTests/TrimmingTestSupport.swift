import TesseraCore

@testable import TesseraTrimming

/// 288 × 40 pt with 16 pt handles and no insets: the track runs from x = 16 to x = 272, 256 pt.
/// With a 32 s clip that is 8 pt per second, so x(t) = 16 + 8t and every value in these tests is
/// exact in binary floating point: a mismatch is a bug, not rounding.
let standardGeometry = TrimmingSliderGeometry(width: 288, height: 40, handleWidth: 16, barThickness: 4)

func makeSlider(
    duration: Double = 32, minimumDuration: Double = 2, maximumDuration: Double? = nil,
    frameTimes: [Double]? = nil, lower: Double = 4, upper: Double = 28, playhead: Double = 16,
    geometry: TrimmingSliderGeometry = standardGeometry
) -> TrimmingSlider {
    let model = TrimmingSliderModel(
        duration: duration, minimumDuration: minimumDuration, maximumDuration: maximumDuration,
        frameTimes: frameTimes, lower: lower, upper: upper, playhead: playhead)
    return TrimmingSlider(model: model, geometry: geometry)
}

func solidFrame(_ color: [UInt8], width: Int = 8, height: Int = 8) -> PixelBuffer {
    PixelBuffer(
        width: width, height: height, format: .rgb8,
        bytes: Array(repeating: color, count: width * height).flatMap { $0 })
}

/// The RGB channels of the pixel at (x, y).
func rgb(_ buffer: PixelBuffer, _ x: Int, _ y: Int) -> [Int] {
    buffer.pixel(x: x, y: y).prefix(3).map(Int.init)
}

/// True when every channel is within `tolerance` (resampling a flat colour can be off by one).
func close(_ actual: [Int], _ expected: [Int], tolerance: Int = 1) -> Bool {
    actual.count == expected.count && zip(actual, expected).allSatisfy { abs($0 - $1) <= tolerance }
}
