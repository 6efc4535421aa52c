import CTesseraLCMS
public import TesseraCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a decode does with an embedded colour profile.
public enum ColorManagement: Sendable, Hashable {
    /// Convert the pixels to sRGB with LittleCMS (perceptual intent, black-point compensation):
    /// what screens assume of untagged pixels, so the result is right everywhere. The default.
    case convertToSRGB
    /// Leave the pixels in the source's colour space; the profile travels with them
    /// (``DecodedImage/iccProfile``) so an encoder can embed it.
    case keepSourceProfile
}

extension ColorManagement {
    /// The profile pixels decoded from a file with `properties` under this policy are in, for an
    /// encoder to embed; nil when they are sRGB: converted, untagged, or CMYK and Lab, which decode
    /// to sRGB whatever is asked. A profile LittleCMS cannot apply stays, as in ``DecodedImage/iccProfile``.
    public func profile(of properties: ImageProperties) -> ICCProfile? {
        guard let profile = properties.iccProfile, profile.colorSpace == .rgb || profile.colorSpace == .gray else { return nil }
        if self == .convertToSRGB, ColorConverter.shared.transform(from: profile, format: properties.decodedFormat) != nil {
            return nil
        }
        return profile
    }
}

extension ICCProfile {
    /// Converts `pixels`, which this profile describes, to sRGB in place. False, with the pixels
    /// untouched, when it cannot: a profile of another colour space than the pixels', or no LittleCMS.
    public func convertToSRGB(_ pixels: inout PixelBuffer) -> Bool {
        ColorConverter.shared.manage(&pixels, profile: self, .convertToSRGB) == nil
    }
}

/// Converts pixels described by an ICC profile to sRGB, through LittleCMS loaded on first use.
/// Transforms are made once per profile and pixel format and kept (a handful: images of one
/// collection mostly share a few profiles), and are safe to use from any thread.
final class ColorConverter: Sendable {
    static let shared = ColorConverter()

    private struct Key: Hashable {
        var profile: ICCProfile
        var format: PixelFormat
        var input: Input = .eightBit
    }

    /// How the samples going in are stored, when they are not ``format``'s own 8 bits.
    enum Input: Hashable {
        case eightBit
        /// CMYK, or CMYK stored as 255 − ink (Adobe's JPEGs); 8 bits a sample, or 16 in the
        /// machine's byte order (TIFF).
        case cmyk(inverted: Bool, sixteenBit: Bool)
        /// ``format``'s channels at 16 bits, in the machine's byte order or big-endian (PNG).
        case sixteenBit(bigEndian: Bool)
    }

    private let transforms = Locked(LRUCache<Key, ColorTransform>(costLimit: 16))

    /// Applies `management` to `pixels`, which `profile` describes, and returns the profile they are
    /// in afterwards (nil: sRGB).
    func manage(_ pixels: inout PixelBuffer, profile: ICCProfile?, _ management: ColorManagement) -> ICCProfile? {
        // No pixel format holds CMYK: the decoder made it sRGB already, through the profile.
        guard let profile, profile.colorSpace != .cmyk else { return nil }
        guard management == .convertToSRGB, let transform = transform(from: profile, format: pixels.format) else { return profile }
        transform.apply(to: &pixels)
        return nil
    }

    /// The transform from `profile` to sRGB for pixels of `format`; nil when the profile does not
    /// describe such pixels (a CMYK or Lab profile on RGB data), when LittleCMS refuses it, or when
    /// LittleCMS is not installed. Then the pixels stay as they are, still described by `profile`.
    func transform(from profile: ICCProfile, format: PixelFormat) -> ColorTransform? {
        cached(Key(profile: profile, format: format)) { ColorTransform(profile: profile, format: format) }
    }

    /// Makes the transform from `profile` for `format` on another thread, for a caller that will
    /// ask for it after work of its own (a thumbnail's decode): making it takes several
    /// milliseconds, longer than converting a thumbnail.
    func prepare(_ profile: ICCProfile, format: PixelFormat) {
        guard profile.colorSpace == .rgb || profile.colorSpace == .gray,
            transforms.withLock({ $0.value(for: Key(profile: profile, format: format)) }) == nil
        else { return }
        Task.detached(priority: .userInitiated) { _ = self.transform(from: profile, format: format) }
    }

    /// The transform from `profile` for 16-bit samples of `format`'s channels to 8-bit sRGB
    /// `format` rows: for 16-bit files, converted before they are reduced to 8 bits, so that
    /// wide-gamut colour keeps its precision (8-bit ProPhoto bands visibly once converted).
    func wideTransform(from profile: ICCProfile, format: PixelFormat, bigEndian: Bool) -> ColorTransform? {
        let input = Input.sixteenBit(bigEndian: bigEndian)
        return cached(Key(profile: profile, format: format, input: input)) { ColorTransform(profile: profile, format: format, input: input) }
    }

    /// The transform for 16-bit samples when `management` asks for sRGB and `profile` can be
    /// converted: what a reader of 16-bit rows applies itself (see ``wideTransform(from:format:bigEndian:)``).
    func wideTransform(
        _ management: ColorManagement, profile: ICCProfile?, format: PixelFormat, bigEndian: Bool
    ) -> ColorTransform? {
        guard management == .convertToSRGB, let profile else { return nil }
        return wideTransform(from: profile, format: format, bigEndian: bigEndian)
    }

    private func cached(_ key: Key, make: () -> ColorTransform?) -> ColorTransform? {
        if let known = transforms.withLock({ $0.value(for: key) }) { return known }
        guard let made = make() else { return nil }
        transforms.withLock { _ = $0.insert(made, for: key, cost: 1) }
        return made
    }

    /// The transform from CMYK rows (4 samples a pixel, of 8 bits, or of 16 with `sixteenBit`;
    /// `inverted` when stored as 255 − ink, as Adobe writes JPEGs) to sRGB rows
    /// (``PixelFormat/rgb8``): through `profile` when it is a CMYK profile LittleCMS accepts, else
    /// through ``defaultCMYKProfilePath``. Nil when neither can be used; then the caller converts
    /// naively. JPEG and TIFF share it, so the same inks give the same colours in either.
    func cmykTransform(profile: ICCProfile?, inverted: Bool, sixteenBit: Bool = false) -> ColorTransform? {
        func made(_ cmyk: ICCProfile) -> ColorTransform? {
            cached(Key(profile: cmyk, format: .rgb8, input: .cmyk(inverted: inverted, sixteenBit: sixteenBit))) {
                ColorTransform(cmykProfile: cmyk, inverted: inverted, sixteenBit: sixteenBit)
            }
        }
        if let profile, profile.colorSpace == .cmyk, let own = made(profile) { return own }
        return Self.defaultCMYKProfile.flatMap(made)
    }

    /// CIELab (8-bit ICC encoding, D50, LittleCMS's built-in Lab profile) to sRGB, in place; nil
    /// without LittleCMS.
    static let labTransform: ColorTransform? = ColorTransform(labToSRGB: false)
    /// CIELab in ICC v4's 16-bit encoding (``tessera_lcms_type_lab_16``) to 8-bit sRGB rows; nil
    /// without LittleCMS.
    static let wideLabTransform: ColorTransform? = ColorTransform(labToSRGB: true)

    /// The profile for CMYK that carries none: ghostscript's "Artifex CMYK SWOP Profile" (Debian's
    /// libgs-common). SWOP is the press standard behind Photoshop's default US CMYK working space,
    /// where most untagged CMYK JPEGs come from.
    static let defaultCMYKProfilePath = "/usr/share/color/icc/ghostscript/default_cmyk.icc"

    private static let defaultCMYKProfile: ICCProfile? = {
        guard let file = fopen(defaultCMYKProfilePath, "rb") else { return nil }
        defer { fclose(file) }
        var bytes = [UInt8](repeating: 0, count: ICCProfile.maximumByteCount)
        let count = fread(&bytes, 1, bytes.count, file)
        return try? ICCProfile(validating: Array(bytes[..<count]))
    }()
}

/// One transform, source profile → sRGB, on rows of one pixel format: tables
/// (``SeparableColorTable``) for 8-bit matrix/TRC and gray profiles, else LittleCMS. LittleCMS's
/// transforms are made with `cmsFLAGS_NOCACHE`, which makes `cmsDoTransform` safe to call from
/// several threads at once.
final class ColorTransform: @unchecked Sendable {
    // @unchecked: the engine is immutable after creation and lcms allows concurrent use of a
    // transform made without its one-pixel cache.
    private let library: TesseraLCMS
    private enum Engine {
        case table(SeparableColorTable)
        case wideGray(WideGrayTable)
        case lcms(cmsHTRANSFORM)
    }
    private let engine: Engine
    let format: PixelFormat

    /// The tables that convert in LittleCMS's place, if any.
    var table: SeparableColorTable? {
        if case .table(let table) = engine { table } else { nil }
    }

    /// Source pixels as `format` (converted in place), or at 16 bits a sample (`input`), into
    /// `format` rows. `tables` false keeps LittleCMS for every pixel (tests compare the two).
    convenience init?(profile: ICCProfile, format: PixelFormat, input: ColorConverter.Input = .eightBit, tables: Bool = true) {
        let type: cmsUInt32Number, wide: cmsUInt32Number
        switch (profile.colorSpace, format) {
        case (.rgb, .rgb8): (type, wide) = (tessera_lcms_type_rgb_8, tessera_lcms_type_rgb_16)
        case (.rgb, .rgba8): (type, wide) = (tessera_lcms_type_rgba_8, tessera_lcms_type_rgba_16)
        case (.gray, .gray8): (type, wide) = (tessera_lcms_type_gray_8, tessera_lcms_type_gray_16)
        case (.gray, .grayAlpha8): (type, wide) = (tessera_lcms_type_graya_8, tessera_lcms_type_graya_16)
        default: return nil
        }
        switch input {
        case .eightBit: self.init(profile: profile, input: type, output: type, format: format, tables: tables)
        case .sixteenBit(let bigEndian) where tables && profile.colorSpace == .gray:
            self.init(wideGray: profile, format: format, bigEndian: bigEndian)
        case .sixteenBit(let bigEndian):
            self.init(profile: profile, input: wide | (bigEndian ? tessera_lcms_endian16_swap : 0), output: type, format: format)
        case .cmyk: return nil
        }
    }

    /// CMYK rows in (8 or 16 bits a sample), sRGB rows (``PixelFormat/rgb8``) out.
    convenience init?(cmykProfile: ICCProfile, inverted: Bool, sixteenBit: Bool = false) {
        let input =
            sixteenBit
            ? (inverted ? tessera_lcms_type_cmyk_16_reverse : tessera_lcms_type_cmyk_16)
            : inverted ? tessera_lcms_type_cmyk_8_reverse : tessera_lcms_type_cmyk_8
        self.init(profile: cmykProfile, input: input, output: tessera_lcms_type_rgb_8, format: .rgb8)
    }

    /// Lab rows in (8-bit ICC encoding, converted in place, or ICC v4's 16-bit one with
    /// `sixteenBit`), sRGB rows (``PixelFormat/rgb8``) out.
    convenience init?(labToSRGB sixteenBit: Bool) {
        let input = sixteenBit ? tessera_lcms_type_lab_16 : tessera_lcms_type_lab_8
        self.init(profile: nil, input: input, output: tessera_lcms_type_rgb_8, format: .rgb8)
    }

    /// From `profile`, or from LittleCMS's D50 Lab profile when it is nil.
    private init?(
        profile: ICCProfile?, input type: cmsUInt32Number, output: cmsUInt32Number, format: PixelFormat, tables: Bool = true
    ) {
        guard let library = tessera_lcms_load(nil, 0)?.pointee else { return nil }
        let opened =
            profile.map { profile in
                profile.data.withUnsafeBytes { library.cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count)) }
            } ?? library.cmsCreateLab4Profile(nil)
        guard let source = opened else { return nil }
        defer { _ = library.cmsCloseProfile(source) }
        let flags =
            cmsUInt32Number(cmsFLAGS_BLACKPOINTCOMPENSATION | cmsFLAGS_NOCACHE)
            | (format.hasAlpha ? cmsUInt32Number(cmsFLAGS_COPY_ALPHA) : 0)
        let intent = cmsUInt32Number(INTENT_PERCEPTUAL)
        self.library = library
        self.format = format
        // In place on 8-bit pixels (not CMYK, Lab or 16 bits in), tables do it when they can. RGB
        // tables need no 8-bit LittleCMS transform (making one takes longer than the tables).
        let tabled = profile != nil && type == output && tables
        if tabled, let table = SeparableColorTable(rgbFrom: source, format: format, intent: intent, flags: flags, library: library) {
            engine = .table(table)
            return
        }
        guard let target = profile?.colorSpace == .gray ? Self.sRGBGray(library) : library.cmsCreate_sRGBProfile() else { return nil }
        defer { _ = library.cmsCloseProfile(target) }
        guard let handle = library.cmsCreateTransform(source, type, target, output, intent, flags) else { return nil }
        if tabled, format == .gray8 || format == .grayAlpha8 {
            engine = .table(SeparableColorTable(grayFrom: { library.cmsDoTransform(handle, $0, $0, cmsUInt32Number($1)) }, format: format))
            library.cmsDeleteTransform(handle)
        } else {
            engine = .lcms(handle)
        }
    }

    /// 16-bit gray (`format`'s channels, big-endian or in the machine's order) into 8-bit `format`
    /// rows by a table of LittleCMS's answer for each of the 65,536 values, from a transform it
    /// does not optimise: an optimised 16-bit gray transform joins the curves into one sampled at
    /// 4,096 points, which strays up to 76 levels from the curve where it is steep (near black, for
    /// a gamma under 1 such as PNG's `gAMA` 2.5; 8-bit transforms are exact, evaluated at each value).
    private init?(wideGray profile: ICCProfile, format: PixelFormat, bigEndian: Bool) {
        guard format == .gray8 || format == .grayAlpha8, let library = tessera_lcms_load(nil, 0)?.pointee,
            let source = profile.data.withUnsafeBytes({ library.cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count)) })
        else { return nil }
        defer { _ = library.cmsCloseProfile(source) }
        guard let target = Self.sRGBGray(library) else { return nil }
        defer { _ = library.cmsCloseProfile(target) }
        let flags = cmsUInt32Number(cmsFLAGS_BLACKPOINTCOMPENSATION | cmsFLAGS_NOCACHE | cmsFLAGS_NOOPTIMIZE)
        guard
            let handle = library.cmsCreateTransform(
                source, tessera_lcms_type_gray_16, target, tessera_lcms_type_gray_8, cmsUInt32Number(INTENT_PERCEPTUAL), flags)
        else { return nil }
        defer { library.cmsDeleteTransform(handle) }
        let inputs = (0...65535).map(UInt16.init)
        var values = [UInt8](repeating: 0, count: inputs.count)
        library.cmsDoTransform(handle, inputs, &values, cmsUInt32Number(inputs.count))
        self.library = library
        self.format = format
        engine = .wideGray(WideGrayTable(values: values, format: format, bigEndian: bigEndian))
    }

    deinit {
        if case .lcms(let handle) = engine { library.cmsDeleteTransform(handle) }
    }

    /// Converts `pixelCount` pixels at `pixels` in place (a transform whose input and output
    /// layouts are the same).
    func apply(_ pixels: UnsafeMutableRawPointer, pixelCount: Int) {
        switch engine {
        case .table(let table): table.apply(pixels, pixelCount: pixelCount)
        case .wideGray: preconditionFailure("a 16-bit transform converts from one buffer into another")
        case .lcms(let handle): library.cmsDoTransform(handle, pixels, pixels, cmsUInt32Number(pixelCount))
        }
    }

    /// Converts `pixelCount` pixels from `input` into `output`.
    func apply(from input: UnsafeRawPointer, to output: UnsafeMutableRawPointer, pixelCount: Int) {
        switch engine {
        case .table(let table):
            // Tables convert in place, so the input and output layouts are the same.
            output.copyMemory(from: input, byteCount: pixelCount * format.bytesPerPixel)
            table.apply(output, pixelCount: pixelCount)
        case .wideGray(let table):
            table.apply(from: input, to: output, pixelCount: pixelCount)
        case .lcms(let handle):
            library.cmsDoTransform(handle, input, output, cmsUInt32Number(pixelCount))
        }
    }

    /// Converts every pixel of `buffer`, which must be in ``format``.
    func apply(to buffer: inout PixelBuffer) {
        precondition(buffer.format == format)
        let count = buffer.width * buffer.height
        buffer.bytes.withUnsafeMutableBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            // Rows of a million pixels at a time: lcms takes a 32-bit count.
            var done = 0
            while done < count {
                let run = min(count - done, 1 << 20)
                apply(base + done * format.bytesPerPixel, pixelCount: run)
                done += run
            }
        }
    }

    /// A gray profile with sRGB's white (D65) and tone curve: gray pixels stay gray and display as
    /// the sRGB gray of the same value.
    private static func sRGBGray(_ library: TesseraLCMS) -> cmsHPROFILE? {
        var white = cmsCIExyY(x: 0.3127, y: 0.3290, Y: 1)
        var parameters: [cmsFloat64Number] = [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]
        guard let curve = library.cmsBuildParametricToneCurve(nil, 4, &parameters) else { return nil }
        defer { library.cmsFreeToneCurve(curve) }
        return library.cmsCreateGrayProfile(&white, curve)
    }
}
