import CTesseraLCMS
import TesseraCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An 8-bit colour transform to sRGB in table form, for the profiles where tables are exact:
/// LittleCMS's answer at a fraction of its cost a pixel (its 8-bit path unpacks to 16 bits and
/// packs again through function pointers: 13–19 ns a pixel here; the tables take about 2.5).
///
/// - **RGB**: a matrix/TRC profile to sRGB is `encode(M · decode(rgb) + offset)`, affine in the
///   decoded channels, so linear light is a sum of one contribution per channel,
///   `Σₖ column[k][vₖ]`, each column 256 linear-sRGB triples read from LittleCMS (a float
///   transform from the profile to sRGB primaries with a linear curve, with the same intent and
///   black-point compensation). Then one table gives sRGB's 8-bit value for each step of linear
///   light. The result is LittleCMS's float pipeline rounded, within a level; its own 8-bit path,
///   in 1.14 fixed point, strays up to 2 levels from that in the darks of gamma curves. A profile
///   that is not separable (a LUT-based one) is caught when the tables are made, by comparing them
///   with that float pipeline on a grid of colours; then there are none and LittleCMS converts.
/// - **Gray**: one channel in, one out: the table is LittleCMS's answer for each of the 256 values.
///
/// Immutable once made; safe to use from any thread.
struct SeparableColorTable: Sendable {
    /// Steps of linear light from black to white: a step of 1/16383 moves sRGB's steepest part
    /// (slope 12.92 near black) by 0.2 of a level, so the table rounds like a direct evaluation.
    private static let steps = 16384
    /// Fraction bits of the columns' fixed point: three rounded columns stay within a step.
    private static let fractionBits: Int32 = 4

    private enum Kind {
        /// `columns[256·k + v]`: channel k's contribution at value v, in steps with
        /// ``fractionBits`` of fraction. Channel 0's column also carries the constant term, half a
        /// step (so that the shift rounds) and the offset that makes every sum an index of `encode`,
        /// which covers every sum the columns can make (out-of-gamut light included) so that no
        /// pixel needs clamping.
        case rgb(columns: [SIMD4<Int32>], encode: [UInt8])
        case gray(values: [UInt8])
    }

    private let kind: Kind
    /// Bytes a pixel: the table converts the first channels and leaves alpha as it is.
    private let bytesPerPixel: Int

    /// The tables for the transform from `source` to sRGB on `format` pixels (``PixelFormat/rgb8``
    /// or ``PixelFormat/rgba8``) with `intent` and `flags`; nil when the profile is not a
    /// matrix/TRC one: when they stray more than one level from LittleCMS's float pipeline anywhere
    /// on a grid of colours.
    init?(rgbFrom source: cmsHPROFILE, format: PixelFormat, intent: cmsUInt32Number, flags: cmsUInt32Number, library: TesseraLCMS) {
        guard format == .rgb8 || format == .rgba8,
            let light = Self.linearLight(source, of: Self.grid, intent: intent, flags: flags, library: library),
            let made = Self.tables(Array(light[..<Self.probeCount]))
        else { return nil }
        bytesPerPixel = format.bytesPerPixel
        kind = .rgb(columns: made.columns, encode: made.encode)
        guard matches(Self.grid, light: light[Self.probeCount...]) else { return nil }
    }

    /// The table of `transform`, an in-place 8-bit transform of `format` pixels (``PixelFormat/gray8``
    /// or ``PixelFormat/grayAlpha8``): its answer for each of the 256 values.
    init(grayFrom transform: (UnsafeMutableRawPointer, Int) -> Void, format: PixelFormat) {
        let stride = format.bytesPerPixel
        var pixels = [UInt8](repeating: 255, count: 256 * stride)
        for value in 0..<256 { pixels[value * stride] = UInt8(value) }
        pixels.withUnsafeMutableBytes { transform($0.baseAddress!, 256) }
        bytesPerPixel = stride
        kind = .gray(values: (0..<256).map { pixels[$0 * stride] })
    }

    /// Converts `pixelCount` pixels at `pixels` in place.
    func apply(_ pixels: UnsafeMutableRawPointer, pixelCount: Int) {
        let bytes = pixels.assumingMemoryBound(to: UInt8.self)
        let stride = bytesPerPixel
        switch kind {
        case .gray(let values):
            values.withUnsafeBufferPointer { table in
                for index in 0..<pixelCount {
                    let at = bytes + index * stride
                    at[0] = table[Int(at[0])]
                }
            }
        case .rgb(let columns, let encode):
            columns.withUnsafeBufferPointer { columns in
                encode.withUnsafeBufferPointer { encode in
                    // Unchecked: every sum of the columns indexes `encode` (see Kind.rgb).
                    let red = columns.baseAddress!, green = red + 256, blue = red + 512, encode = encode.baseAddress!
                    for index in 0..<pixelCount {
                        let at = bytes + index * stride
                        let step = (red[Int(at[0])] &+ green[Int(at[1])] &+ blue[Int(at[2])]) &>> Self.fractionBits
                        at[0] = encode[Int(step[0])]
                        at[1] = encode[Int(step[1])]
                        at[2] = encode[Int(step[2])]
                    }
                }
            }
        }
    }

    /// Black, then each channel alone at every value (`1 + 256·k + v`): what the columns are read from.
    private static let probeCount = 1 + 3 * 256

    /// Linear sRGB light (1 is white) of the probes (``probeCount``), then of `colours`, from a
    /// float transform to sRGB's primaries and white (BT.709 and D65 as LittleCMS builds sRGB: a
    /// white 4·10⁻⁴ away tilts the matrix by a level in the darks) with a linear curve; nil when
    /// LittleCMS refuses it.
    private static func linearLight(
        _ source: cmsHPROFILE, of colours: [SIMD3<UInt8>], intent: cmsUInt32Number, flags: cmsUInt32Number,
        library: TesseraLCMS
    ) -> [SIMD3<Float>]? {
        var white = cmsCIExyY(x: 0.3127, y: 0.3290, Y: 1)
        var primaries = cmsCIExyYTRIPLE(
            Red: cmsCIExyY(x: 0.64, y: 0.33, Y: 1), Green: cmsCIExyY(x: 0.30, y: 0.60, Y: 1),
            Blue: cmsCIExyY(x: 0.15, y: 0.06, Y: 1))
        var gamma: [cmsFloat64Number] = [1]
        guard let curve = library.cmsBuildParametricToneCurve(nil, 1, &gamma) else { return nil }
        defer { library.cmsFreeToneCurve(curve) }
        var curves: [OpaquePointer?] = [curve, curve, curve]
        guard let linear = library.cmsCreateRGBProfile(&white, &primaries, &curves) else { return nil }
        defer { _ = library.cmsCloseProfile(linear) }
        guard
            let transform = library.cmsCreateTransform(
                source, tessera_lcms_type_rgb_8, linear, tessera_lcms_type_rgb_flt, intent,
                flags & ~cmsUInt32Number(cmsFLAGS_COPY_ALPHA))
        else { return nil }
        defer { library.cmsDeleteTransform(transform) }
        var probes = [UInt8](repeating: 0, count: probeCount * 3)
        for channel in 0..<3 {
            for value in 0..<256 { probes[(1 + channel * 256 + value) * 3 + channel] = UInt8(value) }
        }
        for colour in colours { probes += [colour.x, colour.y, colour.z] }
        var light = [Float](repeating: 0, count: probes.count)
        library.cmsDoTransform(transform, probes, &light, cmsUInt32Number(probes.count / 3))
        return (0..<(probes.count / 3)).map { SIMD3(light[$0 * 3], light[$0 * 3 + 1], light[$0 * 3 + 2]) }
    }

    /// The fixed-point columns and the encoding table over every sum they can make, from
    /// ``linearLight(_:intent:flags:library:)``; nil for a range no table should span (light
    /// beyond ±64 times white: not a profile of a camera or a screen).
    private static func tables(_ light: [SIMD3<Float>]) -> (columns: [SIMD4<Int32>], encode: [UInt8])? {
        let one = Float(1 << fractionBits) * Float(steps - 1)
        func fixed(_ light: SIMD3<Float>) -> SIMD4<Int32>? {
            let scaled = light * one
            guard (scaled.min() > -64 * one) && (scaled.max() < 64 * one) else { return nil }
            return SIMD4(Int32(scaled.x.rounded()), Int32(scaled.y.rounded()), Int32(scaled.z.rounded()), 0)
        }
        // f(r, g, b) = f(r, 0, 0) + f(0, g, 0) + f(0, 0, b) − 2·f(0, 0, 0), plus half a step.
        guard let black = fixed(light[0]) else { return nil }
        var columns = [SIMD4<Int32>]()
        columns.reserveCapacity(3 * 256)
        for probe in light.dropFirst() {
            guard let column = fixed(probe) else { return nil }
            columns.append(column)
        }
        for value in 0..<256 { columns[value] &+= SIMD4(repeating: 1 << (fractionBits - 1)) &- 2 &* black }
        // The lowest and highest sum in any lane; the offset makes the lowest index 0.
        var lowest = Int32.zero, highest = Int32.zero
        for lane in 0..<3 {
            var low = Int32.zero, high = Int32.zero
            for channel in 0..<3 {
                let column = columns[(channel * 256)..<(channel * 256 + 256)].map { $0[lane] }
                low += column.min()!
                high += column.max()!
            }
            lowest = min(lowest, low)
            highest = max(highest, high)
        }
        let offset = (lowest >> fractionBits)  // ≤ 0: the step index 0 of the table.
        for value in 0..<256 { columns[value] &-= SIMD4(repeating: offset << fractionBits) }
        let size = Int((highest >> fractionBits) - offset) + 1
        return (columns, encodingTable(from: Int(offset), count: size))
    }

    /// sRGB's 8-bit value of linear light at `count` steps from `first` (in 1/16383 of white),
    /// clamped to 0–255 outside black and white: the level whose rounding interval holds it.
    private static func encodingTable(from first: Int, count: Int) -> [UInt8] {
        func decode(_ encoded: Double) -> Double {
            encoded <= 0.04045 ? encoded / 12.92 : pow((encoded + 0.055) / 1.055, 2.4)
        }
        // Level L begins where light reaches the decoded midpoint between L − 1 and L.
        let thresholds = (1...255).map { decode((Double($0) - 0.5) / 255) * Double(steps - 1) }
        var table = [UInt8](repeating: 0, count: count)
        var level = 0
        for index in 0..<count {
            let step = Double(first + index)
            while level < 255 && step >= thresholds[level] { level += 1 }
            table[index] = UInt8(level)
        }
        return table
    }

    /// Every 15th value of each channel, the extremes included (4,913 colours), and every gray.
    private static let grid: [SIMD3<UInt8>] = {
        let values = Swift.stride(from: 0, through: 255, by: 15).map(UInt8.init)
        var colours = (0...255).map { SIMD3<UInt8>(repeating: UInt8($0)) }
        for red in values { for green in values { for blue in values { colours.append(SIMD3(red, green, blue)) } } }
        return colours
    }()

    /// Whether the tables land within one level of sRGB's exact encoding of `light` (LittleCMS's
    /// float answer for each colour of `colours`). A profile that is not matrix/TRC fails here: its
    /// colours are not the sum of its channels'.
    private func matches(_ colours: [SIMD3<UInt8>], light: ArraySlice<SIMD3<Float>>) -> Bool {
        var pixels = [UInt8](repeating: 255, count: colours.count * bytesPerPixel)
        for (index, colour) in colours.enumerated() {
            for channel in 0..<3 { pixels[index * bytesPerPixel + channel] = colour[channel] }
        }
        pixels.withUnsafeMutableBytes { apply($0.baseAddress!, pixelCount: colours.count) }
        return zip(colours.indices, light).allSatisfy { index, light in
            (0..<3).allSatisfy { abs(Int(pixels[index * bytesPerPixel + $0]) - Self.encoded(light[$0])) <= 1 }
        }
    }

    /// sRGB's 8-bit value of linear light `light`, clamped.
    private static func encoded(_ light: Float) -> Int {
        let clamped = Double(min(max(light, 0), 1))
        let encoded = clamped <= 0.0031308 ? clamped * 12.92 : 1.055 * pow(clamped, 1 / 2.4) - 0.055
        return Int((encoded * 255).rounded())
    }
}
