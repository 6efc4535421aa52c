import CTesseraLCMS
import TesseraCore

/// A colour space a file states with numbers instead of an ICC profile: HEIF/AVIF `nclx` and PNG
/// `cICP` code points (ITU-T H.273), or PNG's `cHRM` and `gAMA` chunks. It becomes an RGB
/// matrix/TRC profile (``profile``), built by LittleCMS, so that such files go through the same
/// conversion — and with `--keep-profile` carry the same meaning — as files with an embedded one.
struct CodedColorSpace: Hashable, Sendable {
    /// CIE 1931 xy chromaticities of the white point and the three primaries.
    struct Chromaticities: Hashable, Sendable {
        var white: SIMD2<Double>
        var red: SIMD2<Double>
        var green: SIMD2<Double>
        var blue: SIMD2<Double>
    }

    /// How stored values map to linear light.
    enum Transfer: Hashable, Sendable {
        /// IEC 61966-2-1, piecewise: linear toe, then exponent 2.4.
        case sRGB
        /// The inverse of the BT.709 (and BT.601, BT.2020) camera curve.
        case bt709
        /// linear = stored ^ exponent.
        case gamma(Double)
    }

    var chromaticities: Chromaticities
    var transfer: Transfer
    /// The description written into the profile (what `tessera info` shows).
    var name: String
    /// Gray pixels: only the white point and the curve matter, and the profile is a gray one.
    var isGray = false

    static let bt709Primaries = Chromaticities(
        white: [0.3127, 0.3290], red: [0.640, 0.330], green: [0.300, 0.600], blue: [0.150, 0.060])

    /// sRGB as far as its numbers go: BT.709 primaries, D65 white, the sRGB curve (for gray: the
    /// curve and the white).
    var isSRGB: Bool {
        transfer == .sRGB && (isGray ? chromaticities.white == Self.bt709Primaries.white : chromaticities == Self.bt709Primaries)
    }

    /// The same colour space, for gray pixels.
    func gray(_ isGray: Bool) -> CodedColorSpace {
        var space = self
        space.isGray = isGray
        return space
    }

    // MARK: - H.273 code points

    /// Why code points are not turned into a colour space; the pixels are then shown as stored.
    struct Unsupported: Error, Sendable, CustomStringConvertible {
        var description: String
    }

    /// The colour space of H.273 `colour_primaries` and `transfer_characteristics` (the matrix
    /// coefficients and range are the YCbCr decoder's business, not colour management's).
    /// Unspecified (2) primaries are taken as BT.709 and an unspecified curve as sRGB, as browsers
    /// do. HDR curves (PQ, HLG) are refused: showing them needs tone mapping, not a profile.
    init(primaries: Int, transfer: Int) throws(Unsupported) {
        let white = SIMD2(0.3127, 0.3290)
        let illuminantC = SIMD2(0.310, 0.316)
        let (chromaticities, primariesName): (Chromaticities, String) =
            switch primaries {
            case 1, 2: (Self.bt709Primaries, "BT.709")
            case 4: (Chromaticities(white: illuminantC, red: [0.67, 0.33], green: [0.21, 0.71], blue: [0.14, 0.08]), "BT.470 M")
            case 5: (Chromaticities(white: white, red: [0.64, 0.33], green: [0.29, 0.60], blue: [0.15, 0.06]), "BT.601 625")
            case 6, 7: (Chromaticities(white: white, red: [0.630, 0.340], green: [0.310, 0.595], blue: [0.155, 0.070]), "BT.601 525")
            case 8: (Chromaticities(white: illuminantC, red: [0.681, 0.319], green: [0.243, 0.692], blue: [0.145, 0.049]), "generic film")
            case 9: (Chromaticities(white: white, red: [0.708, 0.292], green: [0.170, 0.797], blue: [0.131, 0.046]), "BT.2020")
            case 11: (Chromaticities(white: [0.314, 0.351], red: [0.680, 0.320], green: [0.265, 0.690], blue: [0.150, 0.060]), "DCI-P3")
            case 12: (Chromaticities(white: white, red: [0.680, 0.320], green: [0.265, 0.690], blue: [0.150, 0.060]), "Display P3")
            case 22: (Chromaticities(white: white, red: [0.630, 0.340], green: [0.295, 0.605], blue: [0.155, 0.077]), "EBU 3213")
            default: throw Unsupported(description: "colour primaries \(primaries) (H.273) are not supported; colours shown as stored")
            }
        let (curve, curveName): (Transfer, String) =
            switch transfer {
            case 2, 13: (.sRGB, "sRGB curve")
            case 1, 6, 14, 15: (.bt709, "BT.709 curve")
            case 4: (.gamma(2.2), "gamma 2.2")
            case 5: (.gamma(2.8), "gamma 2.8")
            case 8: (.gamma(1), "linear")
            case 16, 18:
                throw Unsupported(
                    description: "HDR transfer \(transfer == 16 ? "PQ" : "HLG") (H.273 \(transfer)) needs tone mapping; colours shown as stored")
            default: throw Unsupported(description: "transfer characteristics \(transfer) (H.273) are not supported; colours shown as stored")
            }
        self.init(
            chromaticities: chromaticities, transfer: curve,
            name: "\(primariesName), \(curveName) (H.273 primaries \(primaries), transfer \(transfer))")
    }

    // MARK: - PNG cHRM and gAMA

    /// The colour space of PNG's `gAMA` (the encoding exponent × 100000) and `cHRM` (xy × 100000:
    /// white, red, green, blue) chunks; either may be missing (then: the sRGB primaries; the sRGB
    /// curve). A gamma of 45455 with sRGB's primaries is sRGB: that is how PNG writers label sRGB
    /// for decoders that do not read the `sRGB` chunk, and how libpng reads it (PNG_GAMMA_sRGB).
    init?(pngGamma: Int?, chromaticities values: [Int]?) {
        guard pngGamma != nil || values != nil else { return nil }
        var chromaticities = Self.bt709Primaries
        if let values {
            guard values.count == 8 else { return nil }
            let xy = values.map { Double($0) / 100_000 }
            let points = (0..<4).map { SIMD2(xy[2 * $0], xy[2 * $0 + 1]) }
            // A white or primary off the spectrum locus's box, or with y = 0, describes no colour.
            guard points.allSatisfy({ $0.x > 0 && $0.y > 0 && $0.x + $0.y <= 1 }) else { return nil }
            chromaticities = Chromaticities(white: points[0], red: points[1], green: points[2], blue: points[3])
            // Writers round sRGB's values to 5 digits: within 0.0001 they are sRGB's own.
            let own = Self.bt709Primaries
            let near = [
                (chromaticities.white, own.white), (chromaticities.red, own.red),
                (chromaticities.green, own.green), (chromaticities.blue, own.blue),
            ]
            .allSatisfy { abs($0.0.x - $0.1.x) <= 0.0001 && abs($0.0.y - $0.1.y) <= 0.0001 }
            if near { chromaticities = own }
        }
        var transfer = Transfer.sRGB
        var name = "PNG"
        if let pngGamma {
            guard pngGamma > 0 else { return nil }
            if abs(pngGamma - 45455) > 1 { transfer = .gamma(100_000 / Double(pngGamma)) }
            name += " gAMA \(Double(pngGamma) / 100_000)"
        }
        if values != nil { name += " cHRM" }
        self.init(chromaticities: chromaticities, transfer: transfer, name: name)
    }

    init(chromaticities: Chromaticities, transfer: Transfer, name: String) {
        self.chromaticities = chromaticities
        self.transfer = transfer
        self.name = name
    }

    // MARK: - The profile

    /// An ICC profile (matrix/TRC, D50-adapted by LittleCMS; gray/TRC for gray) with these numbers;
    /// nil for sRGB itself (nothing to convert) or without LittleCMS. Built once per colour space.
    var profile: ICCProfile? {
        guard !isSRGB else { return nil }
        if let known = Self.built.withLock({ $0[self] }) { return known }
        let made = build()
        Self.built.withLock { cache in
            if cache.count >= 32 { cache.removeAll() }  // files name a handful; a flood only rebuilds
            cache[self] = made
        }
        return made
    }

    private static let built = Locked<[CodedColorSpace: ICCProfile?]>([:])

    private func build() -> ICCProfile? {
        guard let library = tessera_lcms_load(nil, 0)?.pointee else { return nil }
        var parameters: [cmsFloat64Number]
        let type: Int32
        switch transfer {
        case .sRGB: (type, parameters) = (4, [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045])
        case .bt709: (type, parameters) = (4, [1 / 0.45, 1 / 1.099, 0.099 / 1.099, 1 / 4.5, 0.081])
        case .gamma(let exponent): (type, parameters) = (1, [exponent])
        }
        guard let curve = library.cmsBuildParametricToneCurve(nil, type, &parameters) else { return nil }
        defer { library.cmsFreeToneCurve(curve) }
        func xyY(_ point: SIMD2<Double>) -> cmsCIExyY { cmsCIExyY(x: point.x, y: point.y, Y: 1) }
        var white = xyY(chromaticities.white)
        var primaries = cmsCIExyYTRIPLE(Red: xyY(chromaticities.red), Green: xyY(chromaticities.green), Blue: xyY(chromaticities.blue))
        var curves: [OpaquePointer?] = [curve, curve, curve]
        let created =
            isGray
            ? library.cmsCreateGrayProfile(&white, curve) : library.cmsCreateRGBProfile(&white, &primaries, &curves)
        guard let profile = created else { return nil }
        defer { _ = library.cmsCloseProfile(profile) }
        if let text = library.cmsMLUalloc(nil, 1) {
            defer { library.cmsMLUfree(text) }
            if library.cmsMLUsetASCII(text, "en", "US", name) != 0 {
                _ = library.cmsWriteTag(profile, tessera_lcms_description_tag, UnsafeRawPointer(text))
            }
        }
        var count: cmsUInt32Number = 0
        guard library.cmsSaveProfileToMem(profile, nil, &count) != 0, count > 0, Int(count) <= ICCProfile.maximumByteCount
        else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(count))
        guard library.cmsSaveProfileToMem(profile, &bytes, &count) != 0 else { return nil }
        return try? ICCProfile(validating: Array(bytes.prefix(Int(count))))
    }
}
