import CTesseraTIFF
import TesseraCore

/// Streams a TIFF one strip or one row of tiles at a time (a tall strip a band of rows at a time).
///
/// Contiguous 8- and 16-bit gray or RGB (with alpha) are read as stored, exactly (16-bit keeps the
/// high byte, or is converted to sRGB at 16 bits when the file has a profile to convert from);
/// CMYK and Lab are converted to sRGB by LittleCMS, 32-bit integers reduced to their high byte
/// (``TIFFSamples/StoredSamples``). Everything else (palette, other YCbCr, bilevel, separate planes)
/// goes through libtiff's RGBA converter, whose alpha comes back premultiplied and is divided out again.
/// Its buffers (one strip or tile as stored, one band of rows) are sized from the layout
/// ``TIFFFile`` has checked, and allocated once, through ``AllocationLimits``.
final class TIFFScanlineReader: ScanlineReader {
    let outputSize: PixelSize
    let outputFormat: PixelFormat
    let isTruncated = false

    private let file: TIFFFile
    private let bandHeight: Int
    /// One strip or tile as stored, or one row of a strip read row by row (native reads only).
    private let piece: ZeroedBuffer<UInt8>?
    private let band: ZeroedBuffer<UInt8>
    /// One band as libtiff's RGBA converter writes it (converted reads only).
    private let raster: ZeroedBuffer<UInt32>?
    private var bandStart = 0
    private var bandRows = 0
    private var nextRow = 0
    private var rgbaImage: UnsafeMutablePointer<TIFFRGBAImage>?
    /// Converts samples to 8-bit sRGB as they are copied (``TIFFSamples/transform(_:profile:)``:
    /// 16-bit ones with a profile, CMYK, Lab); nil otherwise.
    private let sampleTransform: ColorTransform?
    var convertsColor: Bool { sampleTransform != nil }

    /// - Parameter profile: what the file's colour is in (``ImageProperties/iccProfile``).
    init(file: TIFFFile, profile: ICCProfile?, options: DecodeOptions) throws(ImageDecodingError) {
        self.file = file
        sampleTransform = file.samples.transform(options.colorManagement, profile: profile)
        outputSize = file.size
        outputFormat = file.samples.decodedFormat
        bandHeight = file.bandHeight
        let limits = options.limits
        band = try limits.zeroedBuffer(width: outputSize.width, rows: bandHeight, elementsPerPixel: outputFormat.bytesPerPixel)
        if file.samples.readsNatively {
            let pixelBytes = file.samples.samplesPerPixel * file.samples.bitsPerSample / 8
            piece = try limits.zeroedBuffer(
                width: file.pieceSize.width, rows: file.readsByScanline ? 1 : bandHeight, elementsPerPixel: pixelBytes)
            raster = nil
            return
        }
        piece = nil
        raster = try limits.zeroedBuffer(width: outputSize.width, rows: bandHeight, elementsPerPixel: 1)
        var message = [CChar](repeating: 0, count: 1024)
        let image = UnsafeMutablePointer<TIFFRGBAImage>.allocate(capacity: 1)
        guard file.library.TIFFRGBAImageBegin(image, file.tiff, 1, &message) != 0 else {
            image.deallocate()
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw .unsupported(reason: text)
        }
        image.pointee.req_orientation = image.pointee.orientation  // rows as stored
        rgbaImage = image
    }

    deinit {
        if let rgbaImage {
            file.library.TIFFRGBAImageEnd(rgbaImage)
            rgbaImage.deallocate()
        }
    }

    func readRows(into destination: UnsafeMutablePointer<UInt8>, maximumRows: Int) throws(ImageDecodingError) -> Int {
        guard nextRow < outputSize.height, maximumRows > 0 else { return 0 }
        if nextRow >= bandStart + bandRows {
            bandStart = nextRow
            bandRows = min(bandHeight, outputSize.height - bandStart)
            try (file.samples.readsNatively ? readNativeBand() : readRGBABand())
        }
        let rowBytes = outputSize.width * outputFormat.bytesPerPixel
        let count = min(maximumRows, bandStart + bandRows - nextRow)
        destination.update(from: band.elements.baseAddress! + (nextRow - bandStart) * rowBytes, count: count * rowBytes)
        nextRow += count
        return count
    }

    /// Copies samples as stored into the band, keeping the first `outputFormat` channels.
    private func readNativeBand() throws(ImageDecodingError) {
        guard let piece else { return }
        let width = outputSize.width
        if file.readsByScanline {
            // Rows come in order, so libtiff inflates each strip once, from its start.
            let rowBytes = width * outputFormat.bytesPerPixel
            for offset in 0..<bandRows {
                let row = UInt32(bandStart + offset)
                guard file.library.TIFFReadScanline(file.tiff, piece.elements.baseAddress, row, 0) == 1 else {
                    throw file.failure()
                }
                file.samples.copyStoredPixels(
                    from: UnsafeRawBufferPointer(piece.elements), rowPixels: width, rows: 1, columns: width,
                    to: band.elements.baseAddress! + offset * rowBytes, rowPixels: width, transform: sampleTransform)
            }
            return
        }
        let samples = file.samples.samplesPerPixel
        let bytesPerSample = file.samples.bitsPerSample / 8
        let pieceWidth = file.pieceSize.width
        let pieceCount = (width + pieceWidth - 1) / pieceWidth
        // The rows of this band in one piece: a short last strip holds only those.
        let needed = bandRows * pieceWidth * samples * bytesPerSample
        for index in 0..<pieceCount {
            let x0 = index * pieceWidth
            let buffer = piece.elements
            let read: Int
            if file.isTiled {
                let tile = file.library.TIFFComputeTile(file.tiff, UInt32(x0), UInt32(bandStart), 0, 0)
                read = Int(file.library.TIFFReadEncodedTile(file.tiff, tile, buffer.baseAddress, tmsize_t(buffer.count)))
            } else {
                let strip = file.library.TIFFComputeStrip(file.tiff, UInt32(bandStart), 0)
                read = Int(file.library.TIFFReadEncodedStrip(file.tiff, strip, buffer.baseAddress, tmsize_t(buffer.count)))
            }
            guard read >= 0 else { throw file.failure() }
            guard read >= needed else {
                throw .corrupt(reason: "a TIFF \(file.isTiled ? "tile" : "strip") decoded to \(read) bytes of the \(needed) its rows need")
            }
            let columns = min(pieceWidth, width - x0)
            file.samples.copyStoredPixels(
                from: UnsafeRawBufferPointer(buffer), rowPixels: pieceWidth, rows: bandRows, columns: columns,
                to: band.elements.baseAddress! + x0 * outputFormat.bytesPerPixel, rowPixels: width,
                transform: sampleTransform)
        }
    }

    private func readRGBABand() throws(ImageDecodingError) {
        guard let rgbaImage, let raster = raster?.elements else { return }
        let width = outputSize.width
        rgbaImage.pointee.row_offset = Int32(bandStart)
        let ok = file.library.TIFFRGBAImageGet(rgbaImage, raster.baseAddress, UInt32(width), UInt32(bandRows))
        guard ok != 0 else { throw file.failure() }
        let channels = outputFormat.bytesPerPixel
        let band = band.elements.baseAddress!
        for index in 0..<(width * bandRows) {
            file.samples.storeConverted(raster[index], at: band + index * channels)
        }
    }
}
