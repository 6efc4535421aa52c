import CTesseraAV
import FoundationEssentials
import TesseraCore

/// BMP, icon (BMP entries), PNM/PAM and TGA images through ffmpeg's image decoders (libavcodec,
/// loaded on first use, as for video): the file is decoded into ffmpeg's frame when the reader is
/// made, within the limits its header was checked against (and ffmpeg's own `max_pixels`, set to
/// the same limit, whatever ffmpeg reads); rows are then converted from that frame as they are
/// asked for, so the memory is the frame in its stored layout and the rows handed out.
final class StillScanlineReader: ScanlineReader {
    let outputSize: PixelSize
    let outputFormat: PixelFormat
    var isTruncated: Bool { false }
    private let still: OpaquePointer
    /// An icon's AND mask and the bytes it is in, applied where the decoded colours have no alpha.
    private let mask: (layout: StillImageHeader.IconMask, bytes: [UInt8])?
    private var nextRow = 0

    /// Rows converted at a time: swscale's context is made for a chunk's height.
    private static let chunkRows = 64

    /// Decodes the image `header` describes. Throws `.libraryUnavailable` without ffmpeg's
    /// libraries, `.corrupt` for data ffmpeg refuses or that decodes to another size.
    init(source: ImageSource, header: StillImageHeader, limits: AllocationLimits) throws(ImageDecodingError) {
        let data: Data
        if let payload = header.payload { data = Data(payload) } else { data = try source.loadData() }
        var error = [CChar](repeating: 0, count: 256)
        var truncated: Int32 = 0
        let decoded = data.withUnsafeBytes { bytes in
            tessera_av_still_decode(
                header.codec.rawValue, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), bytes.count,
                Int64(clamping: limits.maximumPixelCount), &error, error.count, &truncated)
        }
        guard let decoded else {
            let message = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if message.hasPrefix("cannot load") { throw .libraryUnavailable(reason: message) }
            throw truncated != 0 ? .truncated(reason: message) : .corrupt(reason: message)
        }
        still = decoded
        let decodedSize = PixelSize(width: Int(tessera_av_still_width(decoded)), height: Int(tessera_av_still_height(decoded)))
        guard decodedSize == header.size else {
            tessera_av_still_free(decoded)
            throw .corrupt(
                reason: "the header says \(header.size.width)×\(header.size.height), ffmpeg decoded \(decodedSize.width)×\(decodedSize.height)")
        }
        outputSize = header.size
        outputFormat = header.decodedFormat
        let hasAlpha = tessera_av_still_has_alpha(decoded) != 0
        mask = header.mask.flatMap { layout in hasAlpha ? nil : (layout, header.payload ?? []) }
    }

    deinit { tessera_av_still_free(still) }

    func readRows(into destination: UnsafeMutablePointer<UInt8>, maximumRows: Int) throws(ImageDecodingError) -> Int {
        let count = min(maximumRows, outputSize.height - nextRow, Self.chunkRows)
        guard count > 0 else { return 0 }
        let channels = outputFormat.bytesPerPixel, width = outputSize.width
        var error = [CChar](repeating: 0, count: 256)
        guard tessera_av_still_rows(still, Int32(nextRow), Int32(count), Int32(channels), destination, width * channels, &error, error.count) != 0
        else {
            throw .corrupt(reason: String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        if let mask {
            // Set bits are transparent; the mask's rows are stored bottom-up.
            for row in 0..<count {
                let start = mask.layout.offset + (outputSize.height - 1 - (nextRow + row)) * mask.layout.bytesPerRow
                let pixels = destination + row * width * channels
                for x in 0..<width where mask.bytes[start + x >> 3] & (0x80 >> UInt8(x & 7)) != 0 {
                    pixels[x * channels + channels - 1] = 0
                }
            }
        }
        nextRow += count
        return count
    }
}
