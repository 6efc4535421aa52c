import CTesseraShims
import FoundationEssentials
import TesseraCore

/// Streams a JPEG through libjpeg(-turbo), optionally shrinking in the DCT (1/2, 1/4, 1/8: the
/// scales libjpeg-turbo accelerates) and optionally only a window of it: rows above it are passed
/// over without being produced (`jpeg_skip_scanlines`), rows below it never read, and only the
/// iMCU columns it touches decoded (`jpeg_crop_scanline`); where the file has restart markers, the
/// rows above are not even passed over (``JPEGRestartSplice``). CMYK and YCCK come out as RGB.
final class JPEGScanlineReader: ScanlineReader {
    private(set) var outputSize: PixelSize
    private(set) var columnOffset = 0
    let outputFormat: PixelFormat
    /// The DCT reduction in use: 1, 2, 4 or 8.
    let scaleDenominator: Int
    private(set) var isTruncated = false
    /// The output row decoding started at: 0, or the first of a restart interval entered directly
    /// (``JPEGRestartSplice``).
    let enteredAtRow: Int

    private let handle: CHandle<UnsafeMutablePointer<TesseraJPEGDecoder>>
    private var decoder: UnsafeMutablePointer<TesseraJPEGDecoder> { handle.pointer }
    private let input: LibraryInput
    private let allowsTruncatedData: Bool
    private let isCMYK: Bool
    private let limits: AllocationLimits
    private var cmykRow: ZeroedBuffer<UInt8>?
    /// Rows decoded above the window (its margin) and dropped before the first is produced.
    private var rowsToDiscard = 0
    /// The output row after the window's last.
    private var lastRow: Int
    /// CMYK → sRGB through the embedded or the default CMYK profile; nil: the naive formula.
    private var cmykTransform: ColorTransform?

    /// Output pixels decoded beside a window on each side, so the pixels in it are the ones a whole
    /// decode gives: fancy upsampling treats the edges of a cropped or skipped-to area as the
    /// image's own (an iMCU is at most 32 output pixels wide or tall).
    static let windowMargin = 32

    /// - Parameters:
    ///   - denominator: the DCT reduction (1, 2, 4 or 8); nil: chosen from ``DecodeOptions/minimumSize``.
    ///   - window: the rows (exactly) and columns (at least: see ``columnOffset``) to produce, in
    ///     the scaled image; nil: all of it.
    init(
        source: ImageSource, header: JPEGHeader, options: DecodeOptions, denominator: Int? = nil, window: PixelRect? = nil
    ) throws(ImageDecodingError) {
        handle = .allocate(TesseraJPEGDecoder(), destroy: tessera_jpeg_decoder_destroy)
        allowsTruncatedData = options.allowsTruncatedData
        limits = options.limits
        isCMYK = header.componentCount == 4
        input = try LibraryInput(source)
        let profile = isCMYK ? header.properties(fileByteCount: 0).iccProfile : nil
        let denominator = denominator ?? Self.scaleDenominator(for: header.size, minimumSize: options.minimumSize)
        scaleDenominator = denominator
        outputFormat = header.componentCount == 1 ? .gray8 : .rgb8
        let scaled = PixelSize(
            width: (header.size.width + denominator - 1) / denominator,
            height: (header.size.height + denominator - 1) / denominator)
        let window =
            window?.intersection(PixelRect(x: 0, y: 0, width: scaled.width, height: scaled.height))
            ?? PixelRect(x: 0, y: 0, width: scaled.width, height: scaled.height)
        outputSize = scaled
        lastRow = scaled.height
        let decoder = handle.pointer
        guard tessera_jpeg_decoder_init(decoder) == 0 else { throw .unsupported(reason: "libjpeg could not start") }
        // A window below the top of a file with restart markers is entered at the marker above it
        // (its rows numbered from there); any other is read from the top.
        let firstWanted = max(0, window.y - Self.windowMargin)
        let splice =
            firstWanted > 0 && input.isLocalFile
            ? input.withFile { JPEGRestartSplice.find(in: $0, startingAtOrAbove: firstWanted * denominator) } ?? nil : nil
        let rowOffset = (splice?.firstRow ?? 0) / denominator
        enteredAtRow = rowOffset
        if let splice {
            try check(
                input.withFile { file in
                    guard fseeko(file, off_t(splice.dataOffset), SEEK_SET) == 0 else { return -1 }
                    return splice.prefix.withUnsafeBufferPointer {
                        tessera_jpeg_source_spliced(decoder, $0.baseAddress, UInt($0.count), file, Int32(splice.markerShift))
                    }
                } ?? -1)
        } else {
            if input.isLocalFile { _ = input.withFile { rewind($0) } }
            try check(
                input.withFile { tessera_jpeg_source_file(decoder, $0) }
                    ?? input.withBytes { tessera_jpeg_source_memory(decoder, $0, UInt($1)) })
        }
        try check(tessera_jpeg_read_header(decoder))
        // Progressive and multi-scan JPEGs keep every DCT coefficient (2 bytes a sample) until the last
        // scan. Cap libjpeg's memory so a hostile header fails instead of exhausting the machine.
        decoder.pointee.info.mem.pointee.max_memory_to_use = limits.maximumByteCount
        decoder.pointee.info.scale_num = 1
        decoder.pointee.info.scale_denom = UInt32(denominator)
        decoder.pointee.info.out_color_space = header.componentCount == 1 ? JCS_GRAYSCALE : isCMYK ? JCS_CMYK : JCS_RGB
        try check(tessera_jpeg_start_decompress(decoder))
        try checkTruncation()
        let info = decoder.pointee.info
        guard Int(info.output_width) == scaled.width, Int(info.output_height) == scaled.height - rowOffset else {
            throw .corrupt(reason: "libjpeg's output size differs from the header")
        }
        var columns = (offset: UInt32(0), width: UInt32(scaled.width))
        if window.width < scaled.width {
            let left = max(0, window.x - Self.windowMargin)
            columns = (UInt32(left), UInt32(min(scaled.width, window.x + window.width + Self.windowMargin) - left))
            try check(tessera_jpeg_crop_scanline(decoder, &columns.offset, &columns.width))
        }
        columnOffset = Int(columns.offset)
        outputSize = PixelSize(width: Int(columns.width), height: window.height)
        let firstDecoded = firstWanted - rowOffset
        var skipped: UInt32 = 0
        while skipped < firstDecoded {
            var count: UInt32 = 0
            try check(tessera_jpeg_skip_scanlines(decoder, UInt32(firstDecoded) - skipped, &count))
            try checkTruncation()
            guard count > 0 else { throw .truncated(reason: "the JPEG data ends before row \(firstDecoded)") }
            skipped += count
        }
        rowsToDiscard = window.y - rowOffset - firstDecoded
        lastRow = window.y - rowOffset + window.height
        // Adobe writes CMYK inverted, and libjpeg flags it through the APP14 marker.
        cmykTransform = isCMYK ? ColorConverter.shared.cmykTransform(profile: profile, inverted: info.saw_Adobe_marker != 0) : nil
    }

    /// The largest power-of-two DCT reduction whose output still covers `minimumSize`.
    static func scaleDenominator(for size: PixelSize, minimumSize: PixelSize?) -> Int {
        guard let minimumSize else { return 1 }
        for denominator in [8, 4, 2] {
            let width = (size.width + denominator - 1) / denominator
            let height = (size.height + denominator - 1) / denominator
            if width >= minimumSize.width && height >= minimumSize.height { return denominator }
        }
        return 1
    }

    func readRows(into destination: UnsafeMutablePointer<UInt8>, maximumRows: Int) throws(ImageDecodingError) -> Int {
        while rowsToDiscard > 0 {
            let count = try decodeRows(into: destination, maximumRows: min(maximumRows, rowsToDiscard))
            guard count > 0 else { return 0 }
            rowsToDiscard -= count
        }
        let remaining = lastRow - Int(decoder.pointee.info.output_scanline)
        return try decodeRows(into: destination, maximumRows: min(maximumRows, remaining))
    }

    private func decodeRows(into destination: UnsafeMutablePointer<UInt8>, maximumRows: Int) throws(ImageDecodingError) -> Int {
        let info = decoder.pointee.info
        guard info.output_scanline < info.output_height, maximumRows > 0 else { return 0 }
        var rowsRead: UInt32 = 0
        if isCMYK {
            if cmykRow == nil { cmykRow = try limits.zeroedBuffer(width: outputSize.width, rows: 1, elementsPerPixel: 4) }
            let row = cmykRow!
            var pointer: UnsafeMutablePointer<UInt8>? = row.elements.baseAddress
            try check(tessera_jpeg_read_scanlines(decoder, &pointer, 1, &rowsRead))
            if rowsRead == 1 {
                if let cmykTransform {
                    cmykTransform.apply(from: row.elements.baseAddress!, to: destination, pixelCount: outputSize.width)
                } else {
                    convertCMYKRow(row.elements, into: destination)
                }
            }
        } else {
            let bytesPerRow = outputSize.width * outputFormat.bytesPerPixel
            let count = min(maximumRows, 16)
            var rows = (0..<count).map { Optional(destination + $0 * bytesPerRow) }
            try check(
                rows.withUnsafeMutableBufferPointer {
                    tessera_jpeg_read_scanlines(decoder, $0.baseAddress, UInt32(count), &rowsRead)
                })
        }
        try checkTruncation()
        return Int(rowsRead)
    }

    /// Without LittleCMS or a CMYK profile: Adobe writes CMYK inverted (and libjpeg flags it through
    /// the APP14 marker); with ink stored as 255 − ink, RGB is simply (stored C × stored K) / 255.
    private func convertCMYKRow(_ cmykRow: UnsafeMutableBufferPointer<UInt8>, into destination: UnsafeMutablePointer<UInt8>) {
        let inverted = decoder.pointee.info.saw_Adobe_marker != 0
        for x in 0..<outputSize.width {
            var c = Int(cmykRow[x * 4]), m = Int(cmykRow[x * 4 + 1])
            var y = Int(cmykRow[x * 4 + 2]), k = Int(cmykRow[x * 4 + 3])
            if !inverted { c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k }
            destination[x * 3] = UInt8((c * k + 127) / 255)
            destination[x * 3 + 1] = UInt8((m * k + 127) / 255)
            destination[x * 3 + 2] = UInt8((y * k + 127) / 255)
        }
    }

    private func checkTruncation() throws(ImageDecodingError) {
        guard decoder.pointee.reachedEndOfInput != 0 else { return }
        if let failure = input.readFailure { throw failure }
        if allowsTruncatedData {
            isTruncated = true
        } else {
            throw .truncated(reason: "the JPEG data ends before the last scanline")
        }
    }

    private func check(_ status: Int32) throws(ImageDecodingError) {
        guard status != 0 else { return }
        if let failure = input.readFailure { throw failure }  // libjpeg saw the failed transfer as the end
        let message = cMessage(decoder.pointee.message)
        if decoder.pointee.reachedEndOfInput != 0 { throw .truncated(reason: message) }
        if decoder.pointee.error.msg_code == Int32(JERR_NO_BACKING_STORE.rawValue) {
            let info = decoder.pointee.info
            throw .tooLarge(pixels: Int(info.image_width) * Int(info.image_height), limit: limits.maximumPixelCount)
        }
        throw .corrupt(reason: message)
    }
}
