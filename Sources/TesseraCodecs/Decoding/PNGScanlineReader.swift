import CTesseraShims
import TesseraCore

/// Streams a PNG through libpng: palette and low bit depths expanded, tRNS turned into alpha,
/// 16-bit samples reduced to their high byte (as Pillow and libvips do).
///
/// Non-interlaced images stream one row at a time. Adam7 images need every pass before any row is
/// final, so they are deinterlaced into one full-size bitmap first: that costs `width × height ×
/// bytes per pixel`, and is therefore held to ``DecodeOptions/maximumPixelCount``.
final class PNGScanlineReader: ScanlineReader {
    let outputSize: PixelSize
    let outputFormat: PixelFormat
    private(set) var isTruncated = false

    private let handle: CHandle<UnsafeMutablePointer<TesseraPNGDecoder>>
    private var decoder: UnsafeMutablePointer<TesseraPNGDecoder> { handle.pointer }
    private let input: LibraryInput
    private let allowsTruncatedData: Bool
    private let limits: AllocationLimits
    private var passes = 1
    private var nextRow = 0
    /// libpng failed after the input ended; the remaining rows are blank.
    private var stoppedAtTruncation = false
    private var deinterlaced: ZeroedBuffer<UInt8>?

    init(source: ImageSource, header: PNGHeader, options: DecodeOptions) throws(ImageDecodingError) {
        let input = try LibraryInput(source)
        handle = .allocate(TesseraPNGDecoder(), destroy: tessera_png_decoder_destroy)
        let decoder = handle.pointer
        self.input = input
        allowsTruncatedData = options.allowsTruncatedData
        limits = options.limits
        outputSize = header.size
        outputFormat = header.decodedFormat
        if let file = input.withFile({ $0 }) {
            decoder.pointee.file = file
        } else {
            input.withBytes { bytes, count in
                decoder.pointee.bytes = bytes
                decoder.pointee.length = count
            }
        }
        var transforms = Int32(TESSERA_PNG_EXPAND)
        if header.bitDepth == 16 { transforms |= Int32(TESSERA_PNG_STRIP_16) }
        if header.isInterlaced { transforms |= Int32(TESSERA_PNG_INTERLACE) }
        var passCount: Int32 = 1
        try check(tessera_png_decoder_init(decoder))
        try check(tessera_png_read_info(decoder))
        try check(tessera_png_configure(decoder, transforms, &passCount))
        let channels = Int(png_get_channels(decoder.pointee.png, decoder.pointee.info))
        let rowBytes = png_get_rowbytes(decoder.pointee.png, decoder.pointee.info)
        guard channels == outputFormat.bytesPerPixel, rowBytes == outputSize.width * channels else {
            throw .corrupt(reason: "PNG header and libpng disagree on the pixel layout")
        }
        passes = Int(passCount)
    }

    func readRows(into destination: UnsafeMutablePointer<UInt8>, maximumRows: Int) throws(ImageDecodingError) -> Int {
        guard nextRow < outputSize.height, maximumRows > 0 else { return 0 }
        let bytesPerRow = outputSize.width * outputFormat.bytesPerPixel
        if passes > 1 {
            if deinterlaced == nil { deinterlaced = try readInterlaced() }
            let count = min(maximumRows, outputSize.height - nextRow)
            destination.update(from: deinterlaced!.elements.baseAddress! + nextRow * bytesPerRow, count: count * bytesPerRow)
            nextRow += count
            return count
        }
        if stoppedAtTruncation {
            destination.update(repeating: 0, count: bytesPerRow)
        } else {
            // Past the cut, libpng inflates zero padding until zlib gives up; rows it completes
            // before that were decoded from real data and are kept.
            let status = tessera_png_read_row(decoder, destination)
            if decoder.pointee.reachedEndOfInput != 0 {
                try acceptTruncation()
                if status != 0 {
                    stoppedAtTruncation = true
                    destination.update(repeating: 0, count: bytesPerRow)
                }
            } else {
                try check(status)
            }
        }
        nextRow += 1
        return 1
    }

    private func readInterlaced() throws(ImageDecodingError) -> ZeroedBuffer<UInt8> {
        let bytesPerRow = outputSize.width * outputFormat.bytesPerPixel
        let image = try limits.zeroedBuffer(
            width: outputSize.width, rows: outputSize.height, elementsPerPixel: outputFormat.bytesPerPixel, of: UInt8.self)
        let all = image.elements.baseAddress!
        var status: Int32 = 0
        for _ in 0..<passes {
            for row in 0..<outputSize.height where status == 0 && decoder.pointee.reachedEndOfInput == 0 {
                status = tessera_png_read_row(decoder, all + row * bytesPerRow)
            }
        }
        if decoder.pointee.reachedEndOfInput != 0 {
            try acceptTruncation()  // what the passes filled in so far stays: a coarse preview
        } else {
            try check(status)
        }
        return image
    }

    /// Truncation is an error unless allowed; when allowed, rows from the cut on stay blank
    /// (zeros: transparent where there is alpha, black otherwise).
    private func acceptTruncation() throws(ImageDecodingError) {
        guard allowsTruncatedData else { throw .truncated(reason: "the PNG data ends before the last row") }
        isTruncated = true
    }

    private func check(_ status: Int32) throws(ImageDecodingError) {
        if status != 0 { throw failure() }
    }

    private func failure() -> ImageDecodingError {
        let message = cMessage(decoder.pointee.message)
        return decoder.pointee.reachedEndOfInput != 0 ? .truncated(reason: message) : .corrupt(reason: message)
    }
}
