import Foundation
import TesseraCore

/// Perceptual colour difference of two sRGB bitmaps: CIEDE2000 per pixel, summarised as the mean and
/// the 99th percentile. The colour tests hold Tessera's sRGB output to LittleCMS's own transform of the
/// same pixels (Tests/Fixtures/colour, made by scripts/make-colour-fixtures.py, whose Python twin of
/// these functions wrote the `bugDeltaE` numbers in that manifest).
///
/// - sRGB → CIELab: the IEC 61966-2-1 curve and matrix give XYZ relative to D65, and Lab is taken
///   relative to that same D65 white (the matrix's own white, so 255/255/255 is exactly L* 100,
///   a* = b* = 0). No chromatic adaptation: both images are sRGB, so the white point only has to be the
///   same for both, and D65 is sRGB's own.
/// - CIEDE2000 exactly as Sharma, Wu & Dalal, "The CIEDE2000 Color-Difference Formula: Implementation
///   Notes, Supplementary Test Data, and Mathematical Observations", Color Res. Appl. 30 (2005),
///   equations 2–22, with kL = kC = kH = 1.
/// - Alpha: colour is compared wherever either image has alpha > 0 (straight alpha, so the colour of a
///   semi-transparent pixel is its own); pixels transparent in both are skipped, as their colour is
///   invisible. Alpha itself is not part of ΔE: compare it separately.
enum ColourDifference {
    struct Lab: Sendable, Equatable {
        var l: Double
        var a: Double
        var b: Double
    }

    /// The sRGB matrix (IEC 61966-2-1), linear RGB → XYZ.
    static let matrix: [[Double]] = [
        [0.4124, 0.3576, 0.1805],
        [0.2126, 0.7152, 0.0722],
        [0.0193, 0.1192, 0.9505],
    ]

    /// D65 as the matrix maps RGB white: X 0.9505, Y 1, Z 1.0890.
    static let white = (x: matrix[0].reduce(0, +), y: matrix[1].reduce(0, +), z: matrix[2].reduce(0, +))

    /// The sRGB decoding curve for every 8-bit value.
    static let linear: [Double] = (0...255).map { value in
        let c = Double(value) / 255
        return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
    }

    /// CIELab (D65) of an 8-bit sRGB colour.
    static func lab(red: UInt8, green: UInt8, blue: UInt8) -> Lab {
        let r = linear[Int(red)], g = linear[Int(green)], b = linear[Int(blue)]
        let x = matrix[0][0] * r + matrix[0][1] * g + matrix[0][2] * b
        let y = matrix[1][0] * r + matrix[1][1] * g + matrix[1][2] * b
        let z = matrix[2][0] * r + matrix[2][1] * g + matrix[2][2] * b
        func f(_ t: Double) -> Double {
            let delta = 6.0 / 29.0
            return t > delta * delta * delta ? cbrt(t) : t / (3 * delta * delta) + 4.0 / 29.0
        }
        let fx = f(x / white.x), fy = f(y / white.y), fz = f(z / white.z)
        return Lab(l: 116 * fy - 16, a: 500 * (fx - fy), b: 200 * (fy - fz))
    }

    /// ΔE00 between two Lab colours (symmetric; the equation numbers are Sharma's).
    static func ciede2000(_ first: Lab, _ second: Lab) -> Double {
        func radians(_ degrees: Double) -> Double { degrees * .pi / 180 }
        func degrees(_ radians: Double) -> Double { radians * 180 / .pi }
        let pow25to7 = 6_103_515_625.0  // 25^7

        // (2)-(7): a' with the G correction, C', h' in [0, 360), and 0 where a' = b = 0.
        let cStarMean =
            ((first.a * first.a + first.b * first.b).squareRoot()
                + (second.a * second.a + second.b * second.b).squareRoot()) / 2
        let cStarMean7 = pow(cStarMean, 7)
        let g = 0.5 * (1 - (cStarMean7 / (cStarMean7 + pow25to7)).squareRoot())
        let a1 = (1 + g) * first.a, a2 = (1 + g) * second.a
        let c1 = (a1 * a1 + first.b * first.b).squareRoot()
        let c2 = (a2 * a2 + second.b * second.b).squareRoot()
        func hue(_ b: Double, _ aPrime: Double) -> Double {
            if b == 0 && aPrime == 0 { return 0 }
            let h = degrees(atan2(b, aPrime))
            return h < 0 ? h + 360 : h
        }
        let h1 = hue(first.b, a1), h2 = hue(second.b, a2)

        // (8)-(10): ΔL', ΔC', Δh' (0 when either chroma is 0) and ΔH'.
        let deltaL = second.l - first.l
        let deltaC = c2 - c1
        let chromaProduct = c1 * c2
        var deltah = 0.0
        if chromaProduct != 0 {
            deltah = h2 - h1
            if deltah > 180 { deltah -= 360 } else if deltah < -180 { deltah += 360 }
        }
        let deltaH = 2 * chromaProduct.squareRoot() * sin(radians(deltah / 2))

        // (12)-(14): the means; the mean hue goes the short way round the circle.
        let lMean = (first.l + second.l) / 2
        let cMean = (c1 + c2) / 2
        var hMean = h1 + h2
        if chromaProduct != 0 {
            if abs(h1 - h2) <= 180 {
                hMean = (h1 + h2) / 2
            } else if h1 + h2 < 360 {
                hMean = (h1 + h2 + 360) / 2
            } else {
                hMean = (h1 + h2 - 360) / 2
            }
        }

        // (15)-(22): weighting functions and the rotation term.
        let t =
            1 - 0.17 * cos(radians(hMean - 30)) + 0.24 * cos(radians(2 * hMean))
            + 0.32 * cos(radians(3 * hMean + 6)) - 0.20 * cos(radians(4 * hMean - 63))
        let deltaTheta = 30 * exp(-pow((hMean - 275) / 25, 2))
        let cMean7 = pow(cMean, 7)
        let rC = 2 * (cMean7 / (cMean7 + pow25to7)).squareRoot()
        let lOffset2 = (lMean - 50) * (lMean - 50)
        let sL = 1 + 0.015 * lOffset2 / (20 + lOffset2).squareRoot()
        let sC = 1 + 0.045 * cMean
        let sH = 1 + 0.015 * cMean * t
        let rT = -sin(radians(2 * deltaTheta)) * rC
        let l = deltaL / sL, c = deltaC / sC, h = deltaH / sH
        return (l * l + c * c + h * h + rT * c * h).squareRoot()
    }

    /// The nearest-rank percentile of `values`, which must be sorted ascending: the smallest value
    /// at least `percent` % of them do not exceed.
    static func percentile(_ percent: Double, ofSorted values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let rank = Int((percent / 100 * Double(values.count)).rounded(.up))
        return values[min(max(rank, 1), values.count) - 1]
    }
}

/// Mean and 99th percentile (nearest rank) of the CIEDE2000 difference between two same-sized 8-bit
/// sRGB bitmaps, pixel by pixel. Any of the four formats may be compared with any other: gray is
/// R = G = B, and a format without alpha counts as opaque. Colour is compared where either image has
/// alpha > 0; when no pixel qualifies both numbers are 0.
func colourDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> (mean: Double, p99: Double) {
    precondition(a.width == b.width && a.height == b.height, "colourDifference needs two bitmaps of one size")
    func colour(_ buffer: PixelBuffer, _ index: Int) -> (red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8) {
        let format = buffer.format
        let base = index * format.bytesPerPixel
        let alpha = format.alphaChannelIndex.map { buffer.bytes[base + $0] } ?? 255
        if format.isGray {
            let gray = buffer.bytes[base]
            return (gray, gray, gray, alpha)
        }
        return (buffer.bytes[base], buffer.bytes[base + 1], buffer.bytes[base + 2], alpha)
    }
    var cache: [UInt32: ColourDifference.Lab] = [:]
    func lab(_ c: (red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8)) -> ColourDifference.Lab {
        let key = UInt32(c.red) << 16 | UInt32(c.green) << 8 | UInt32(c.blue)
        if let known = cache[key] { return known }
        let value = ColourDifference.lab(red: c.red, green: c.green, blue: c.blue)
        cache[key] = value
        return value
    }
    var differences: [Double] = []
    differences.reserveCapacity(a.width * a.height)
    for index in 0..<(a.width * a.height) {
        let first = colour(a, index), second = colour(b, index)
        if first.alpha == 0 && second.alpha == 0 { continue }
        differences.append(ColourDifference.ciede2000(lab(first), lab(second)))
    }
    guard !differences.isEmpty else { return (0, 0) }
    differences.sort()
    let mean = differences.reduce(0, +) / Double(differences.count)
    return (mean, ColourDifference.percentile(99, ofSorted: differences))
}
