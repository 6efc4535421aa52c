import Foundation
import Testing
import TesseraCore

/// One row of Table 1 in Sharma, Wu & Dalal (2005): two Lab colours and their published ΔE00.
struct SharmaPair: Sendable, CustomTestStringConvertible {
    let number: Int
    let first: ColourDifference.Lab
    let second: ColourDifference.Lab
    let deltaE: Double

    var testDescription: String { "pair \(number)" }

    /// All 34 pairs, transcribed from the paper. They were chosen to catch the usual mistakes: the
    /// hue wrap at 0°/360°, the mean hue of opposite hues, zero chroma, and the rotation term near blue.
    static let table: [SharmaPair] = rows.enumerated().map { index, row in
        SharmaPair(
            number: index + 1, first: .init(l: row.0, a: row.1, b: row.2), second: .init(l: row.3, a: row.4, b: row.5),
            deltaE: row.6)
    }

    private static let rows: [(Double, Double, Double, Double, Double, Double, Double)] = [
        (50.0000, 2.6772, -79.7751, 50.0000, 0.0000, -82.7485, 2.0425),
        (50.0000, 3.1571, -77.2803, 50.0000, 0.0000, -82.7485, 2.8615),
        (50.0000, 2.8361, -74.0200, 50.0000, 0.0000, -82.7485, 3.4412),
        (50.0000, -1.3802, -84.2814, 50.0000, 0.0000, -82.7485, 1.0000),
        (50.0000, -1.1848, -84.8006, 50.0000, 0.0000, -82.7485, 1.0000),
        (50.0000, -0.9009, -85.5211, 50.0000, 0.0000, -82.7485, 1.0000),
        (50.0000, 0.0000, 0.0000, 50.0000, -1.0000, 2.0000, 2.3669),
        (50.0000, -1.0000, 2.0000, 50.0000, 0.0000, 0.0000, 2.3669),
        (50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0009, 7.1792),
        (50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0010, 7.1792),
        (50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0011, 7.2195),
        (50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0012, 7.2195),
        (50.0000, -0.0010, 2.4900, 50.0000, 0.0009, -2.4900, 4.8045),
        (50.0000, -0.0010, 2.4900, 50.0000, 0.0010, -2.4900, 4.8045),
        (50.0000, -0.0010, 2.4900, 50.0000, 0.0011, -2.4900, 4.7461),
        (50.0000, 2.5000, 0.0000, 50.0000, 0.0000, -2.5000, 4.3065),
        (50.0000, 2.5000, 0.0000, 73.0000, 25.0000, -18.0000, 27.1492),
        (50.0000, 2.5000, 0.0000, 61.0000, -5.0000, 29.0000, 22.8977),
        (50.0000, 2.5000, 0.0000, 56.0000, -27.0000, -3.0000, 31.9030),
        (50.0000, 2.5000, 0.0000, 58.0000, 24.0000, 15.0000, 19.4535),
        (50.0000, 2.5000, 0.0000, 50.0000, 3.1736, 0.5854, 1.0000),
        (50.0000, 2.5000, 0.0000, 50.0000, 3.2972, 0.0000, 1.0000),
        (50.0000, 2.5000, 0.0000, 50.0000, 1.8634, 0.5757, 1.0000),
        (50.0000, 2.5000, 0.0000, 50.0000, 3.2592, 0.3350, 1.0000),
        (60.2574, -34.0099, 36.2677, 60.4626, -34.1751, 39.4387, 1.2644),
        (63.0109, -31.0961, -5.8663, 62.8187, -29.7946, -4.0864, 1.2630),
        (61.2901, 3.7196, -5.3901, 61.4292, 2.2480, -4.9620, 1.8731),
        (35.0831, -44.1164, 3.7933, 35.0232, -40.0716, 1.5901, 1.8645),
        (22.7233, 20.0904, -46.6940, 23.0331, 14.9730, -42.5619, 2.0373),
        (36.4612, 47.8580, 18.3852, 36.2715, 50.5065, 21.2231, 1.4146),
        (90.8027, -2.0831, 1.4410, 91.1528, -1.6435, 0.0447, 1.4441),
        (90.9257, -0.5406, -0.9208, 88.6381, -0.8985, -0.7239, 1.5381),
        (6.7747, -0.2908, -2.4247, 5.8714, -0.0985, -2.2286, 0.6377),
        (2.0776, 0.0795, -1.1350, 0.9033, -0.0636, -0.5514, 0.9082),
    ]
}

@Suite("Colour difference: CIEDE2000 and the sRGB comparison the colour tests use")
struct ColourDifferenceTests {
    @Test("CIEDE2000 gives Sharma, Wu & Dalal's published value for each test pair, in either order",
          arguments: SharmaPair.table)
    func sharmaPair(pair: SharmaPair) {
        #expect(SharmaPair.table.count == 34)
        let forward = ColourDifference.ciede2000(pair.first, pair.second)
        let backward = ColourDifference.ciede2000(pair.second, pair.first)
        #expect(abs(forward - pair.deltaE) < 1e-4, "\(forward) for \(pair.deltaE)")
        #expect(abs(backward - pair.deltaE) < 1e-4, "\(backward) for \(pair.deltaE)")
    }

    @Test("sRGB to CIELab (D65): white and black exactly, gray and the primaries where the usual tables put them")
    func srgbToLab() {
        func close(_ lab: ColourDifference.Lab, _ l: Double, _ a: Double, _ b: Double, within tolerance: Double) -> Bool {
            abs(lab.l - l) < tolerance && abs(lab.a - a) < tolerance && abs(lab.b - b) < tolerance
        }
        #expect(close(ColourDifference.lab(red: 255, green: 255, blue: 255), 100, 0, 0, within: 1e-9))
        #expect(close(ColourDifference.lab(red: 0, green: 0, blue: 0), 0, 0, 0, within: 1e-12))
        let gray = ColourDifference.lab(red: 119, green: 119, blue: 119)
        #expect(abs(gray.l - 50.03) < 0.01 && abs(gray.a) < 1e-9 && abs(gray.b) < 1e-9)
        // The published values come from matrices of other precision: they agree to a few hundredths.
        #expect(close(ColourDifference.lab(red: 255, green: 0, blue: 0), 53.24, 80.09, 67.20, within: 0.05))
        #expect(close(ColourDifference.lab(red: 0, green: 255, blue: 0), 87.73, -86.18, 83.18, within: 0.05))
        #expect(close(ColourDifference.lab(red: 0, green: 0, blue: 255), 32.30, 79.19, -107.86, within: 0.05))
    }

    @Test("identical bitmaps differ by nothing, whatever their formats")
    func identical() {
        let rgb = PixelBuffer(width: 16, height: 8, format: .rgb8, bytes: (0..<(16 * 8 * 3)).map { UInt8($0 % 251) })
        #expect(colourDifference(rgb, rgb) == (0, 0))
        #expect(colourDifference(rgb, rgb.converted(to: .rgba8)) == (0, 0))
        let gray = PixelBuffer(width: 16, height: 8, format: .gray8, bytes: (0..<(16 * 8)).map { UInt8($0 * 2) })
        #expect(colourDifference(gray, gray.converted(to: .rgb8)) == (0, 0))
    }

    @Test("the 99th percentile is the nearest rank: 1 differing pixel in 100 does not show, 2 do")
    func percentile() {
        let base = PixelBuffer(width: 10, height: 10, format: .rgb8, bytes: [UInt8](repeating: 128, count: 300))
        let pixelDelta = ColourDifference.ciede2000(
            ColourDifference.lab(red: 128, green: 128, blue: 128), ColourDifference.lab(red: 200, green: 60, blue: 60))
        var one = base
        one.bytes[0...2] = [200, 60, 60]
        let oneResult = colourDifference(base, one)
        #expect(oneResult.p99 == 0)
        #expect(abs(oneResult.mean - pixelDelta / 100) < 1e-12)
        var two = one
        two.bytes[297...299] = [200, 60, 60]
        let twoResult = colourDifference(base, two)
        #expect(twoResult.p99 == pixelDelta)
        #expect(abs(twoResult.mean - pixelDelta / 50) < 1e-12)
    }

    @Test("colour is compared wherever either image has alpha, and ignored where both are transparent")
    func alpha() {
        // Pixel 0: transparent in both, colours differ (ignored). Pixel 1: half transparent, same colour.
        // Pixel 2: transparent in one only, colours differ (counted). Pixel 3: opaque, same colour.
        let a = PixelBuffer(width: 4, height: 1, format: .rgba8,
                            bytes: [255, 0, 0, 0, 10, 20, 30, 128, 0, 0, 255, 0, 90, 90, 90, 255])
        let b = PixelBuffer(width: 4, height: 1, format: .rgba8,
                            bytes: [0, 255, 0, 0, 10, 20, 30, 128, 255, 255, 0, 255, 90, 90, 90, 255])
        let blueToYellow = ColourDifference.ciede2000(
            ColourDifference.lab(red: 0, green: 0, blue: 255), ColourDifference.lab(red: 255, green: 255, blue: 0))
        let result = colourDifference(a, b)
        #expect(abs(result.mean - blueToYellow / 3) < 1e-12)
        #expect(result.p99 == blueToYellow)
        let allTransparent = PixelBuffer(width: 4, height: 1, format: .rgba8)
        #expect(colourDifference(allTransparent, allTransparent) == (0, 0))
    }

    @Test("a just-noticeable shift is about 1, and a gross one is far above the colour tests' bounds")
    func scale() {
        let gray = PixelBuffer(width: 4, height: 4, format: .rgb8, bytes: [UInt8](repeating: 120, count: 48))
        let shifted = PixelBuffer(width: 4, height: 4, format: .rgb8, bytes: [UInt8](repeating: 122, count: 48))
        let near = colourDifference(gray, shifted)
        #expect(near.mean > 0.5 && near.mean < 1.5 && abs(near.p99 - near.mean) < 1e-12)
        let red = PixelBuffer(width: 4, height: 4, format: .rgb8, bytes: (0..<48).map { $0 % 3 == 0 ? 255 : 0 })
        #expect(colourDifference(gray, red).mean > 30)
    }
}
