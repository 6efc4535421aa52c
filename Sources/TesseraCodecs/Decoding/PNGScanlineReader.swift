import CTesseraShims
import TesseraCore

/// Streams a PNG through libpng: palette and low bit depths expanded, tRNS turned into alpha,
/// 16-bit samples reduced to their high byte (as Pillow and libvips do) — or, when they are to be
/// converted to sRGB from a profile, converted at 16 bits into 8-bit rows by LittleCMS.
///
/// Non-interlaced images stream one row at a time. Adam7 images need every pass before any row is
/// final, so they are deinterlaced into one full-size bitmap first: that costs `width × height ×
/// bytes per pixel`, and is therefore held to ``DecodeOptions/maximumPixelCount``.
///
/// Damage is shown as browsers and libpng-based tools show it: an IDAT whose CRC fails is decoded
/// all the same, and image data that breaks off after some rows (a filter type that does not exist,
/// a zlib error, junk where the next chunk should be) leaves the rows before it and blanks the rest,
/// each with a warning. Data that yields no row at all is an error.
final class PNGScanlineReader: ScanlineReader {
    let outputSize: PixelSize
    let outputFormat: PixelFormat
    private(set) var isTruncated = false
    private(set) var warnings: [String] = []

    private let handle: CHandle<UnsafeMutablePointer<TesseraPNGDecoder>>
    private var decoder: UnsafeMutablePointer<TesseraPNGDecoder> { handle.pointer }
    private let input: LibraryInput
    private let allowsTruncatedData: Bool
    private let limits: AllocationLimits
    private var passes = 1
    private var nextRow = 0
    /// libpng failed after the input ended, or its data broke off; the remaining rows are blank.
    private var stopped = false
    private var deinterlaced: ZeroedBuffer<UInt8>?
    /// Converts 16-bit rows (big-endian, as libpng leaves them) to 8-bit sRGB; nil otherwise.
    private let wideTransform: ColorTransform?
    /// One 16-bit row as libpng delivers it, for ``wideTransform``.
    private var wideRow: ZeroedBuffer<UInt8>?
    var convertsColor: Bool { wideTransform != nil }
    /// Bytes of one row as libpng delivers it.
    private let storedRowBytes: Int

    /// - Parameter profile: what the file's colour is in (``ImageProperties/iccProfile``).
    init(source: ImageSource, header: PNGHeader, profile: ICCProfile?, options: DecodeOptions) throws(ImageDecodingError) {
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
        let wide =
            header.bitDepth == 16
            ? ColorConverter.shared.wideTransform(
                options.colorManagement, profile: profile, format: outputFormat, bigEndian: true)
            : nil
        wideTransform = wide
        storedRowBytes = outputSize.width * outputFormat.bytesPerPixel * (wide == nil ? 1 : 2)
        var transforms = Int32(TESSERA_PNG_EXPAND)
        if header.bitDepth == 16 && wide == nil { transforms |= Int32(TESSERA_PNG_STRIP_16) }
        if header.isInterlaced { transforms |= Int32(TESSERA_PNG_INTERLACE) }
        var passCount: Int32 = 1
        try check(tessera_png_decoder_init(decoder))
        try check(tessera_png_read_info(decoder))
        try check(tessera_png_configure(decoder, transforms, &passCount))
        let channels = Int(png_get_channels(decoder.pointee.png, decoder.pointee.info))
        let rowBytes = png_get_rowbytes(decoder.pointee.png, decoder.pointee.info)
        guard channels == outputFormat.bytesPerPixel, rowBytes == storedRowBytes else {
            throw .corrupt(reason: "PNG header and libpng disagree on the pixel layout")
        }
        passes = Int(passCount)
        if wide != nil, passes == 1 {
            wideRow = try limits.zeroedBuffer(width: outputSize.width, rows: 1, elementsPerPixel: channels * 2)
        }
    }

    func readRows(into destination: UnsafeMutablePointer<UInt8>, maximumRows: Int) throws(ImageDecodingError) -> Int {
        guard nextRow < outputSize.height, maximumRows > 0 else { return 0 }
        let bytesPerRow = outputSize.width * outputFormat.bytesPerPixel
        if passes > 1 {
            if deinterlaced == nil { deinterlaced = try readInterlaced() }
            let count = min(maximumRows, outputSize.height - nextRow)
            let stored = deinterlaced!.elements.baseAddress! + nextRow * storedRowBytes
            if let wideTransform {
                wideTransform.apply(from: stored, to: destination, pixelCount: count * outputSize.width)
            } else {
                destination.update(from: stored, count: count * bytesPerRow)
            }
            nextRow += count
            return count
        }
        if stopped {
            destination.update(repeating: 0, count: bytesPerRow)
        } else {
            // Past the cut, libpng inflates zero padding until zlib gives up; rows it completes
            // before that were decoded from real data and are kept.
            let row = wideRow?.elements.baseAddress ?? destination
            let status = tessera_png_read_row(decoder, row)
            noteCRCWarning()
            if decoder.pointee.reachedEndOfInput != 0 {
                try acceptTruncation()
            } else if status != 0 {
                try acceptDamage(atRow: nextRow)
            }
            if status != 0 {
                stopped = true
                destination.update(repeating: 0, count: bytesPerRow)
                nextRow += 1
                return 1
            }
            wideTransform?.apply(from: row, to: destination, pixelCount: outputSize.width)
        }
        nextRow += 1
        return 1
    }

    private func readInterlaced() throws(ImageDecodingError) -> ZeroedBuffer<UInt8> {
        let bytesPerRow = storedRowBytes
        let image = try limits.zeroedBuffer(
            width: outputSize.width, rows: outputSize.height, elementsPerPixel: bytesPerRow / outputSize.width, of: UInt8.self)
        let all = image.elements.baseAddress!
        var status: Int32 = 0
        var rowsRead = 0
        for _ in 0..<passes {
            for row in 0..<outputSize.height where status == 0 && decoder.pointee.reachedEndOfInput == 0 {
                status = tessera_png_read_row(decoder, all + row * bytesPerRow)
                if status == 0 { rowsRead += 1 }
            }
        }
        noteCRCWarning()
        // What the passes filled in so far stays: a coarse preview.
        if decoder.pointee.reachedEndOfInput != 0 {
            try acceptTruncation()
        } else if status != 0 {
            try acceptDamage(atRow: rowsRead)
        }
        return image
    }

    /// Truncation is an error unless allowed; when allowed, rows from the cut on stay blank
    /// (zeros: transparent where there is alpha, black otherwise).
    private func acceptTruncation() throws(ImageDecodingError) {
        if let failure = input.readFailure { throw failure }
        guard allowsTruncatedData else { throw .truncated(reason: "the PNG data ends before the last row") }
        isTruncated = true
    }

    /// Data that breaks off once rows have come out of it is shown as far as it goes, the rest
    /// blank, with a warning (the file is complete: nothing more will come); before any row, or
    /// when a ranged source's transfer failed, it is the error it is.
    private func acceptDamage(atRow row: Int) throws(ImageDecodingError) {
        if let failure = input.readFailure { throw failure }
        guard row > 0 else { throw failure() }
        isTruncated = true
        let place = passes > 1 ? "during its interlaced passes" : "after \(row) of its \(outputSize.height) rows"
        warnings.append(
            "the PNG's image data breaks off \(place) (\(cMessage(decoder.pointee.message))): what decoded is shown, the rest is blank")
    }

    /// Reports, once, a CRC error libpng read past.
    private func noteCRCWarning() {
        guard decoder.pointee.crcWarning.0 != 0, !warnings.contains(where: { $0.hasPrefix("a PNG chunk fails") }) else { return }
        warnings.append("a PNG chunk fails its CRC check (\(cMessage(decoder.pointee.crcWarning))): its data is used all the same")
    }

    private func check(_ status: Int32) throws(ImageDecodingError) {
        if status != 0 { throw failure() }
    }

    private func failure() -> ImageDecodingError {
        let message = cMessage(decoder.pointee.message)
        if let failure = input.readFailure { return failure }
        return decoder.pointee.reachedEndOfInput != 0 ? .truncated(reason: message) : .corrupt(reason: message)
    }
}
