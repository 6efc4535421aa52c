import CTesseraTIFF
import TesseraCore

/// Streams a TIFF one strip or one row of tiles at a time.
///
/// Contiguous 8- and 16-bit gray or RGB (with alpha) are read as stored, exactly (16-bit keeps the
/// high byte). Everything else (palette, CMYK, YCbCr, bilevel, separate planes) goes through
/// libtiff's RGBA converter, whose alpha comes back premultiplied and is divided out again.
/// Its buffers (one strip or tile as stored, one band of rows) are sized from the layout
/// ``TIFFFile`` has checked, and allocated once, through ``AllocationLimits``.
final class TIFFScanlineReader: ScanlineReader {
    let outputSize: PixelSize
    let outputFormat: PixelFormat
    let isTruncated = false

    private let file: TIFFFile
    private let bandHeight: Int
    /// One strip or tile as stored (native reads only).
    private let piece: ZeroedBuffer<UInt8>?
    private let band: ZeroedBuffer<UInt8>
    /// One band as libtiff's RGBA converter writes it (converted reads only).
    private let raster: ZeroedBuffer<UInt32>?
    private var bandStart = 0
    private var bandRows = 0
    private var nextRow = 0
    private var rgbaImage: UnsafeMutablePointer<TIFFRGBAImage>?

    init(file: TIFFFile, options: DecodeOptions) throws(ImageDecodingError) {
        self.file = file
        outputSize = file.size
        outputFormat = file.decodedFormat
        bandHeight = file.pieceSize.height
        let limits = options.limits
        band = try limits.zeroedBuffer(width: outputSize.width, rows: bandHeight, elementsPerPixel: outputFormat.bytesPerPixel)
        if file.readsNatively {
            let pixelBytes = file.samplesPerPixel * file.bitsPerSample / 8
            piece = try limits.zeroedBuffer(width: file.pieceSize.width, rows: bandHeight, elementsPerPixel: pixelBytes)
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
            try (file.readsNatively ? readNativeBand() : readRGBABand())
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
        let channels = outputFormat.bytesPerPixel
        let samples = file.samplesPerPixel
        let bytesPerSample = file.bitsPerSample / 8
        let pieceWidth = file.pieceSize.width
        let pieceCount = (width + pieceWidth - 1) / pieceWidth
        // The rows of this band in one piece: a short last strip holds only those.
        let needed = bandRows * pieceWidth * samples * bytesPerSample
        let invert = file.photometric == Int(PHOTOMETRIC_MINISWHITE)
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
            let source = UnsafeRawBufferPointer(buffer), output = band.elements
            for row in 0..<bandRows {
                let sourceRow = row * pieceWidth * samples * bytesPerSample
                for column in 0..<columns {
                    let s = sourceRow + column * samples * bytesPerSample
                    let d = (row * width + x0 + column) * channels
                    for channel in 0..<channels {
                        var value: UInt8
                        if bytesPerSample == 2 {
                            value = UInt8(source.loadUnaligned(fromByteOffset: s + channel * 2, as: UInt16.self) >> 8)
                        } else {
                            value = source[s + channel]
                        }
                        if invert && channel == 0 { value = 255 - value }
                        output[d + channel] = value
                    }
                }
            }
        }
    }

    private func readRGBABand() throws(ImageDecodingError) {
        guard let rgbaImage, let raster = raster?.elements else { return }
        let width = outputSize.width
        rgbaImage.pointee.row_offset = Int32(bandStart)
        let ok = file.library.TIFFRGBAImageGet(rgbaImage, raster.baseAddress, UInt32(width), UInt32(bandRows))
        guard ok != 0 else { throw file.failure() }
        let channels = outputFormat.bytesPerPixel
        let band = band.elements
        for index in 0..<(width * bandRows) {
            let packed = raster[index]
            var red = Int(packed & 0xFF), green = Int(packed >> 8 & 0xFF), blue = Int(packed >> 16 & 0xFF)
            let alpha = Int(packed >> 24)
            if outputFormat.hasAlpha && alpha > 0 && alpha < 255 {
                red = min(255, (red * 255 + alpha / 2) / alpha)
                green = min(255, (green * 255 + alpha / 2) / alpha)
                blue = min(255, (blue * 255 + alpha / 2) / alpha)
            }
            let d = index * channels
            if outputFormat.isGray {
                band[d] = UInt8(red)
            } else {
                band[d] = UInt8(red); band[d + 1] = UInt8(green); band[d + 2] = UInt8(blue)
            }
            if outputFormat.hasAlpha { band[d + channels - 1] = UInt8(alpha) }
        }
    }
}
