import CTesseraTIFF
import TesseraCore

/// Streams a TIFF one strip or one row of tiles at a time.
///
/// Contiguous 8- and 16-bit gray or RGB (with alpha) are read as stored, exactly (16-bit keeps the
/// high byte). Everything else (palette, CMYK, YCbCr, bilevel, separate planes) goes through
/// libtiff's RGBA converter, whose alpha comes back premultiplied and is divided out again.
final class TIFFScanlineReader: ScanlineReader {
    let outputSize: PixelSize
    let outputFormat: PixelFormat
    let isTruncated = false

    private let file: TIFFFile
    private let readsNatively: Bool
    private let bandHeight: Int
    private var band: [UInt8] = []
    private var bandStart = 0
    private var bandRows = 0
    private var nextRow = 0
    private var rgbaImage: UnsafeMutablePointer<TIFFRGBAImage>?

    init(file: TIFFFile, options: DecodeOptions) throws(ImageDecodingError) {
        self.file = file
        outputSize = file.size
        outputFormat = file.decodedFormat
        let photometric = Int32(file.photometric)
        let isPlainLayout = file.planarConfiguration == Int(PLANARCONFIG_CONTIG)
            && (file.bitsPerSample == 8 || file.bitsPerSample == 16)
            && (photometric == PHOTOMETRIC_MINISBLACK || photometric == PHOTOMETRIC_RGB)
            && file.samplesPerPixel >= outputFormat.bytesPerPixel
        readsNatively = isPlainLayout
        var rows: UInt32 = 0
        let tag = file.isTiled ? TIFFTAG_TILELENGTH : TIFFTAG_ROWSPERSTRIP
        _ = tessera_tiff_get_uint32(file.tiff, UInt32(tag), &rows)
        bandHeight = max(1, min(Int(rows), outputSize.height))
        if Double(outputSize.width) * Double(bandHeight) > Double(options.maximumPixelCount) {
            throw .tooLarge(pixels: outputSize.width * bandHeight, limit: options.maximumPixelCount)
        }
        if !readsNatively {
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
            try (readsNatively ? readNativeBand() : readRGBABand())
        }
        let rowBytes = outputSize.width * outputFormat.bytesPerPixel
        let count = min(maximumRows, bandStart + bandRows - nextRow)
        band.withUnsafeBufferPointer { source in
            destination.update(from: source.baseAddress! + (nextRow - bandStart) * rowBytes, count: count * rowBytes)
        }
        nextRow += count
        return count
    }

    /// Copies samples as stored into the band, keeping the first `outputFormat` channels.
    private func readNativeBand() throws(ImageDecodingError) {
        let width = outputSize.width
        let channels = outputFormat.bytesPerPixel
        let samples = file.samplesPerPixel
        let bytesPerSample = file.bitsPerSample / 8
        band = [UInt8](repeating: 0, count: width * bandRows * channels)
        var raw: [UInt8]
        let pieceWidth: Int
        let pieceCount: Int
        if file.isTiled {
            var tileWidth: UInt32 = 0
            _ = tessera_tiff_get_uint32(file.tiff, UInt32(TIFFTAG_TILEWIDTH), &tileWidth)
            pieceWidth = max(1, Int(tileWidth))
            pieceCount = (width + pieceWidth - 1) / pieceWidth
            raw = [UInt8](repeating: 0, count: Int(file.library.TIFFTileSize(file.tiff)))
        } else {
            pieceWidth = width
            pieceCount = 1
            raw = [UInt8](repeating: 0, count: Int(file.library.TIFFStripSize(file.tiff)))
        }
        let invert = file.photometric == Int(PHOTOMETRIC_MINISWHITE)
        for piece in 0..<pieceCount {
            let x0 = piece * pieceWidth
            let read = raw.withUnsafeMutableBytes { buffer -> Int in
                if file.isTiled {
                    let tile = file.library.TIFFComputeTile(file.tiff, UInt32(x0), UInt32(bandStart), 0, 0)
                    return Int(file.library.TIFFReadEncodedTile(file.tiff, tile, buffer.baseAddress, tmsize_t(buffer.count)))
                }
                let strip = file.library.TIFFComputeStrip(file.tiff, UInt32(bandStart), 0)
                return Int(file.library.TIFFReadEncodedStrip(file.tiff, strip, buffer.baseAddress, tmsize_t(buffer.count)))
            }
            guard read >= 0 else { throw file.failure() }
            let columns = min(pieceWidth, width - x0)
            raw.withUnsafeBytes { source in
                band.withUnsafeMutableBufferPointer { output in
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
        }
    }

    private func readRGBABand() throws(ImageDecodingError) {
        guard let rgbaImage else { return }
        let width = outputSize.width
        var raster = [UInt32](repeating: 0, count: width * bandRows)
        rgbaImage.pointee.row_offset = Int32(bandStart)
        let ok = raster.withUnsafeMutableBufferPointer {
            file.library.TIFFRGBAImageGet(rgbaImage, $0.baseAddress, UInt32(width), UInt32(bandRows))
        }
        guard ok != 0 else { throw file.failure() }
        let channels = outputFormat.bytesPerPixel
        band = [UInt8](repeating: 0, count: width * bandRows * channels)
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
