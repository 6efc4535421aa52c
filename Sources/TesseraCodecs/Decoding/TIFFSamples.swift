import CTesseraTIFF
import TesseraCore

/// How one TIFF image's samples are stored (depth, count, format, colour model, alpha) and how
/// they become the decoder's pixels: copied by Tessera (``stored``), or through libtiff's RGBA
/// converter. Read from the image's tags once, when it is opened.
struct TIFFSamples {
    let bitsPerSample: Int
    let samplesPerPixel: Int
    /// SampleFormat: 1 unsigned integers, 2 signed, 3 floating point.
    let sampleFormat: Int
    let photometric: Int
    /// InkSet of separated (photometric 5) images: 1 is CMYK.
    let inkSet: Int
    let planarConfiguration: Int
    let extraSampleCount: Int
    /// The alpha sample is associated (ExtraSamples = 1): colour stored premultiplied by it.
    let alphaIsAssociated: Bool
    /// JPEG-compressed YCbCr whose codec is set to hand back RGB (upsampled and converted by
    /// libjpeg), so its samples are read as stored like RGB's.
    let decodesJPEGAsRGB: Bool
    /// How Tessera reads them (``readable(_:)``); nil: through libtiff's RGBA converter.
    private(set) var stored: StoredSamples?

    /// The samples of the image libtiff's `tiff` is at; `decodesJPEGAsRGB` as its codec was set.
    init(_ tiff: OpaquePointer, decodesJPEGAsRGB: Bool) {
        func field(_ tag: Int32, default fallback: Int) -> Int {
            var value: UInt16 = 0
            return tessera_tiff_get_uint16(tiff, UInt32(tag), &value) != 0 ? Int(value) : fallback
        }
        bitsPerSample = field(TIFFTAG_BITSPERSAMPLE, default: 1)
        samplesPerPixel = field(TIFFTAG_SAMPLESPERPIXEL, default: 1)
        sampleFormat = field(TIFFTAG_SAMPLEFORMAT, default: Int(SAMPLEFORMAT_UINT))
        photometric = field(TIFFTAG_PHOTOMETRIC, default: -1)
        inkSet = field(TIFFTAG_INKSET, default: Int(INKSET_CMYK))
        planarConfiguration = field(TIFFTAG_PLANARCONFIG, default: Int(PLANARCONFIG_CONTIG))
        var extraCount: UInt16 = 0
        var firstExtra: UInt16 = 0
        _ = tessera_tiff_get_extra_samples(tiff, &extraCount, &firstExtra)
        extraSampleCount = Int(extraCount)
        alphaIsAssociated = extraCount > 0 && firstExtra == UInt16(EXTRASAMPLE_ASSOCALPHA)
        self.decodesJPEGAsRGB = decodesJPEGAsRGB
        stored = Self.readable(self)
    }

    var colorModel: ColorModel {
        switch Int32(photometric) {
        case PHOTOMETRIC_MINISBLACK, PHOTOMETRIC_MINISWHITE: .gray
        case PHOTOMETRIC_PALETTE: .palette
        case PHOTOMETRIC_SEPARATED: .cmyk
        default: .rgb
        }
    }

    var hasAlpha: Bool { extraSampleCount > 0 }

    var decodedFormat: PixelFormat {
        (colorModel == .gray ? PixelFormat.gray8 : .rgb8).withAlpha(hasAlpha)
    }

    /// Whether samples are read by Tessera (``stored``) rather than libtiff's RGBA converter.
    var readsNatively: Bool { stored != nil }

    /// Whether Lab samples are converted to sRGB as they are read (so a profile describes the
    /// samples, not the decoded pixels).
    var convertsLab: Bool {
        if case .lab = stored { true } else { false }
    }

    /// How stored samples become ``decodedFormat``'s pixels when Tessera reads them itself.
    enum StoredSamples: Equatable {
        /// Gray or RGB (with alpha), 8 or 16 bits, and JPEG-compressed YCbCr (which the codec turns
        /// into RGB): copied, 16 bits reduced to their high byte or converted to sRGB at 16 bits.
        case direct
        /// CMYK inks (with alpha), 8 or 16 bits, converted to sRGB through the file's CMYK profile
        /// or the one untagged CMYK JPEGs go through (``ColorConverter/cmykTransform(profile:inverted:sixteenBit:)``).
        case cmyk
        /// CIELab (photometric 8: a and b signed) or ICCLab (9: a and b offset by half the range),
        /// 8 or 16 bits, converted to sRGB through LittleCMS's D50 Lab profile.
        case lab(signed: Bool)
        /// 32-bit integer gray or RGB (with alpha), unsigned or signed, reduced to the high byte of
        /// their range (of 0…2³¹ − 1 for signed ones, whose negative values are black).
        case integer32(signed: Bool)
    }

    /// How `samples` are read by Tessera (``stored``, which keeps the answer); nil
    /// for those that go through libtiff's RGBA converter (palette, bilevel, other YCbCr, separate
    /// planes, floating point, min-is-white), and for CMYK and Lab when LittleCMS (or the default
    /// CMYK profile) is missing.
    private static func readable(_ samples: TIFFSamples) -> StoredSamples? {
        let colourSamples = samples.colorModel == .gray ? 1 : samples.colorModel == .cmyk ? 4 : 3
        guard samples.planarConfiguration == Int(PLANARCONFIG_CONTIG), samples.samplesPerPixel >= colourSamples + (samples.hasAlpha ? 1 : 0) else {
            return nil
        }
        let common = samples.bitsPerSample == 8 || samples.bitsPerSample == 16
        switch Int32(samples.photometric) {
        case PHOTOMETRIC_MINISBLACK, PHOTOMETRIC_RGB:
            if common { return .direct }
            let integer = samples.sampleFormat == Int(SAMPLEFORMAT_UINT) || samples.sampleFormat == Int(SAMPLEFORMAT_INT)
            return samples.bitsPerSample == 32 && integer && !samples.alphaIsAssociated
                ? .integer32(signed: samples.sampleFormat == Int(SAMPLEFORMAT_INT)) : nil
        case PHOTOMETRIC_YCBCR:
            return samples.decodesJPEGAsRGB ? .direct : nil
        case PHOTOMETRIC_SEPARATED:
            let converter = ColorConverter.shared.cmykTransform(profile: nil, inverted: false, sixteenBit: samples.bitsPerSample == 16)
            return common && samples.inkSet == Int(INKSET_CMYK) && converter != nil ? .cmyk : nil
        case PHOTOMETRIC_CIELAB, PHOTOMETRIC_ICCLAB:
            let converter = samples.bitsPerSample == 16 ? ColorConverter.wideLabTransform : ColorConverter.labTransform
            return common && samples.samplesPerPixel == 3 && converter != nil ? .lab(signed: samples.photometric == Int(PHOTOMETRIC_CIELAB)) : nil
        default:
            return nil
        }
    }
}
