import Foundation
import TesseraCore
import Testing

/// One row of Table 1 in Sharma, Wu & Dalal (2005): two Lab colours and their published ΔE00.
struct SharmaPair: Sendable, CustomTestStringConvertible {
    let number: Int
    let first: ColourDifference.Lab
    let second: ColourDifference.Lab
    let deltaE: Double

    var testDescription: String { "pair \(number)" }

    /// All 34 pairs, from Tests/Fixtures/rules/ciede2000-sharma.json (shared with the colour
    /// fixtures' generator). They were chosen to catch the usual mistakes: the hue wrap at 0°/360°,
    /// the mean hue of opposite hues, zero chroma, and the rotation term near blue.
    static let table: [SharmaPair] = {
        struct File: Decodable { let pairs: [[Double]] }
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/rules/ciede2000-sharma.json")
        let rows = try! JSONDecoder().decode(File.self, from: Data(contentsOf: url)).pairs
        return rows.enumerated().map { index, row in
            SharmaPair(
                number: index + 1, first: .init(l: row[0], a: row[1], b: row[2]), second: .init(l: row[3], a: row[4], b: row[5]),
                deltaE: row[6])
        }
    }()
}

@Suite("Colour difference: CIEDE2000 and the sRGB comparison the colour tests use")
struct ColourDifferenceTests {
    @Test(
        "CIEDE2000 gives Sharma, Wu & Dalal's published value for each test pair, in either order",
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
        let a = PixelBuffer(
            width: 4, height: 1, format: .rgba8,
            bytes: [255, 0, 0, 0, 10, 20, 30, 128, 0, 0, 255, 0, 90, 90, 90, 255])
        let b = PixelBuffer(
            width: 4, height: 1, format: .rgba8,
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
