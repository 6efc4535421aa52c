import CTesseraJXL
import FoundationEssentials
import TesseraCore

/// A JPEG XL file read through libjxl (loaded on first use): headers (and an animation's frame
/// headers) when opened, the first frame decoded whole into 8-bit samples when asked, on several
/// threads; an animation's frames through ``JXLFrameDecoder``. libjxl turns the pixels
/// upright itself (the size here is the upright one), and gives them in the profile the headers
/// report: none for sRGB, else the one libjxl describes them with (an ICC profile, or one it makes
/// from the file's enumerated colour encoding).
struct JXLDecoder {
    /// The file's bytes: libjxl reads from memory.
    let data: Data
    let size: PixelSize
    let bitsPerSample: Int
    let hasAlpha: Bool
    let isGray: Bool
    let isAnimated: Bool
    /// How long each frame shows, in seconds, as browsers show it (``AnimationTiming``): one entry
    /// for a still. Frames of no duration are part of the next, as libjxl composes them.
    let frameDurations: [Double]
    /// Plays of an animation, 0 forever.
    let loopCount: Int
    /// Why an animation is shown as its first frame: its frame headers could not all be read.
    let animationWarning: String?
    /// The decoded pixels' profile when they are not sRGB.
    let iccProfileData: [UInt8]?

    /// Reads the headers. Throws `.libraryUnavailable` without libjxl, and `.tooLarge` past the limits.
    init(_ source: ImageSource, limits: AllocationLimits) throws(ImageDecodingError) {
        _ = try Libraries.jxl.get()
        data = try source.loadData()
        var info = TesseraJXLInfo()
        let probed = data.withUnsafeBytes { tessera_jxl_probe($0.baseAddress!.assumingMemoryBound(to: UInt8.self), $0.count, &info) }
        defer { tessera_jxl_free(info.icc) }
        guard probed != 0 else {
            let message = cMessage(info.error)
            throw info.truncated != 0 ? .truncated(reason: message) : .corrupt(reason: message)
        }
        size = PixelSize(width: Int(info.width), height: Int(info.height))
        guard size.width > 0, size.height > 0 else { throw .corrupt(reason: "a JPEG XL image of \(size)") }
        bitsPerSample = Int(info.bitsPerSample)
        hasAlpha = info.alphaBits > 0
        isGray = info.colorChannels == 1
        isAnimated = info.animated != 0
        iccProfileData = info.isSRGB == 0 && info.iccLength > 0 ? Array(UnsafeBufferPointer(start: info.icc, count: info.iccLength)) : nil
        (frameDurations, loopCount, animationWarning) = isAnimated ? Self.timing(data) : ([0], 1, nil)
        try limits.check(size, decodedFormat)
    }

    /// Every frame's duration and the plays, from the frame headers (no pixel is decoded). An
    /// animation whose frame headers cannot all be read (cut short, damaged) is shown as its first
    /// frame, as browsers show what decodes, with the reason as a warning.
    private static func timing(_ data: Data) -> ([Double], Int, String?) {
        var timing = TesseraJXLTiming()
        let read = data.withUnsafeBytes { tessera_jxl_timing($0.baseAddress!.assumingMemoryBound(to: UInt8.self), $0.count, &timing) }
        defer { tessera_jxl_free(timing.durations) }
        guard read != 0, let durations = timing.durations else {
            return ([0], 1, "an animated JPEG XL whose frames cannot all be read (\(cMessage(timing.error))): its first frame is shown")
        }
        let seconds = UnsafeBufferPointer(start: durations, count: timing.frameCount).map {
            AnimationTiming.displayedDuration(milliseconds: Int(($0 * 1000).rounded()))
        }
        return (seconds, Int(timing.loops), nil)
    }

    var decodedFormat: PixelFormat { (isGray ? PixelFormat.gray8 : .rgb8).withAlpha(hasAlpha) }

    func properties(fileByteCount: Int) -> ImageProperties {
        var properties = ImageProperties(
            format: .jxl, size: size, orientation: .up, hasAlpha: hasAlpha, bitsPerComponent: bitsPerSample,
            colorModel: isGray ? .gray : .rgb, frameCount: frameDurations.count, isProgressive: false, fileByteCount: fileByteCount,
            decodedFormat: decodedFormat)
        properties.attachProfile(iccProfileData)
        if frameDurations.count > 1 { properties.animation = AnimationTiming(frameDurations: frameDurations, loopCount: loopCount) }
        if let animationWarning { properties.warnings.append(animationWarning) }
        return properties
    }

    /// The first frame (of an animation, as it shows first), 8 bits a sample, upright.
    func decode(limits: AllocationLimits) throws(ImageDecodingError) -> PixelBuffer {
        let format = decodedFormat
        try limits.check(size, format)
        var error = [CChar](repeating: 0, count: 256)
        var truncated: Int32 = 0
        var failed = false
        let pixels = PixelBuffer(width: size.width, height: size.height, format: format) { target in
            let decoded = data.withUnsafeBytes { bytes in
                tessera_jxl_decode(
                    bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), bytes.count, UInt32(format.bytesPerPixel), target.baseAddress!,
                    target.count, Int32(Libraries.threadCount), &error, &truncated)
            }
            failed = decoded == 0
        }
        if failed {
            let message = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw truncated != 0 ? .truncated(reason: message) : .corrupt(reason: message)
        }
        return pixels
    }
}
