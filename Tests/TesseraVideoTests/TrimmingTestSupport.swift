@testable import TesseraVideo

/// 288 × 40 pt with 16 pt handles and no insets: the track runs from x = 16 to x = 272, 256 pt.
/// With a 32 s clip that is 8 pt per second, so x(t) = 16 + 8t and every value in these tests is
/// exact in binary floating point: a mismatch is a bug, not rounding.
let standardGeometry = TrimmingSliderGeometry(width: 288, height: 40, handleWidth: 16, barThickness: 4)
