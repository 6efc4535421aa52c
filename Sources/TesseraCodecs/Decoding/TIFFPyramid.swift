import CTesseraTIFF
public import TesseraCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A tiled TIFF whose images are the levels of one pyramid, each about half the size of the one
/// before (as `vips tiffsave --tile --pyramid` writes them, the files iipsrv serves), read one tile
/// at a time from the level a view needs: nothing is derived from the file and no more than one
/// tile is decoded at a time.
///
/// Not thread-safe: a reader holds one libtiff handle per level, and one thread uses it at a time.
/// Hosts that read concurrently keep a few readers per file (they are cheap to open: one image
/// directory per level).
public final class TIFFPyramid {
    /// The size of each level, full size first; level `n` is `levelSizes[0] / 2ⁿ`, rounded either way.
    public let levelSizes: [PixelSize]
    /// Pixels of one stored tile; tiles at a level's right and bottom edges are returned cropped.
    public let tileSize: PixelSize
    /// The format every tile decodes to.
    public let pixelFormat: PixelFormat

    private let levels: [TIFFFile]
    private let limits: AllocationLimits
    /// Converts every tile to sRGB from the file's profile (``DecodeOptions/colorManagement``);
    /// nil when there is nothing to convert, or when samples are converted as they are read
    /// (``sampleTransform``: 16-bit ones, CMYK, Lab).
    private let colorTransform: ColorTransform?
    private let sampleTransform: ColorTransform?
    /// One tile as stored, or as libtiff's RGBA converter writes it; allocated on first use.
    private var storedTile: ZeroedBuffer<UInt8>?
    private var convertedTile: ZeroedBuffer<UInt32>?

    /// Opens the pyramid of the TIFF at `path`: the first image and every one after it that is
    /// tiled like it (same tile size, pixel format and sample depth) and about half the size of the one before;
    /// the first image that is not ends the pyramid (a label or a macro photo may follow).
    ///
    /// - Returns: nil when the file is a TIFF but no such pyramid: its first image is stored in
    ///   strips, has no smaller levels after it, or is turned by an orientation tag.
    /// - Throws: what a decode of the file would (``ImageDecodingError``).
    public init?(path: String, options: DecodeOptions = DecodeOptions()) throws(ImageDecodingError) {
        var info = stat()
        guard stat(path, &info) == 0 else { throw errno == ENOENT ? .notFound : .unreadable(reason: String(cString: strerror(errno))) }
        let fileByteCount = Int(info.st_size)
        limits = options.limits
        let first = try TIFFFile(.file(path), fileByteCount: fileByteCount, limits: limits)
        guard first.isTiled, first.orientation == .up else { return nil }
        var levels = [first]
        let count = Int(first.library.TIFFNumberOfDirectories(first.tiff))
        for directory in 1..<max(count, 1) {
            guard let next = try? TIFFFile(.file(path), fileByteCount: fileByteCount, limits: limits, directory: directory),
                let last = levels.last, next.isTiled, next.pieceSize == first.pieceSize,
                next.decodedFormat == first.decodedFormat, next.bitsPerSample == first.bitsPerSample,
                next.readsNatively == first.readsNatively, Self.halves(last.size, to: next.size)
            else { break }
            levels.append(next)
        }
        guard levels.count > 1 else { return nil }
        self.levels = levels
        levelSizes = levels.map(\.size)
        tileSize = first.pieceSize
        pixelFormat = first.decodedFormat
        let profile = first.properties(fileByteCount: fileByteCount).iccProfile
        sampleTransform = first.sampleTransform(options.colorManagement, profile: profile)
        colorTransform =
            options.colorManagement == .convertToSRGB && sampleTransform == nil
            ? profile.flatMap { ColorConverter.shared.transform(from: $0, format: first.decodedFormat) } : nil
    }

    /// Whether `smaller` is `larger` halved, rounded down or up, on both sides.
    private static func halves(_ larger: PixelSize, to smaller: PixelSize) -> Bool {
        func half(_ a: Int, _ b: Int) -> Bool { b == a / 2 || b == (a + 1) / 2 }
        return smaller.width > 0 && smaller.height > 0 && half(larger.width, smaller.width) && half(larger.height, smaller.height)
    }

    /// The tile at `column`, `row` of level `level` (0 is full size), decoded and cropped to the level.
    ///
    /// - Throws: ``ImageDecodingError/unsupported(reason:)`` for a tile outside the level, or what
    ///   libtiff reports for a tile it cannot decode.
    public func tile(level: Int, column: Int, row: Int) throws(ImageDecodingError) -> PixelBuffer {
        guard levels.indices.contains(level) else { throw .unsupported(reason: "the TIFF pyramid has no level \(level)") }
        let file = levels[level]
        let size = levelSizes[level]
        let x0 = column * tileSize.width, y0 = row * tileSize.height
        guard column >= 0, row >= 0, x0 < size.width, y0 < size.height else {
            throw .unsupported(reason: "level \(level) of the TIFF pyramid has no tile \(column),\(row)")
        }
        var pixels = PixelBuffer(
            width: min(tileSize.width, size.width - x0), height: min(tileSize.height, size.height - y0), format: pixelFormat)
        if file.readsNatively {
            try readStored(file, x0: x0, y0: y0, into: &pixels)
        } else {
            try readConverted(file, x0: x0, y0: y0, into: &pixels)
        }
        colorTransform?.apply(to: &pixels)
        return pixels
    }

    private func readStored(_ file: TIFFFile, x0: Int, y0: Int, into pixels: inout PixelBuffer) throws(ImageDecodingError) {
        let pixelBytes = file.samplesPerPixel * file.bitsPerSample / 8
        if storedTile == nil {
            storedTile = try limits.zeroedBuffer(width: tileSize.width, rows: tileSize.height, elementsPerPixel: pixelBytes)
        }
        guard let buffer = storedTile?.elements else { return }
        let index = file.library.TIFFComputeTile(file.tiff, UInt32(x0), UInt32(y0), 0, 0)
        let read = Int(file.library.TIFFReadEncodedTile(file.tiff, index, buffer.baseAddress, tmsize_t(buffer.count)))
        guard read >= 0 else { throw file.failure() }
        let needed = pixels.height * tileSize.width * pixelBytes
        guard read >= needed else { throw .corrupt(reason: "a TIFF tile decoded to \(read) bytes of the \(needed) its rows need") }
        let (columns, rows, rowPixels) = (pixels.width, pixels.height, pixels.width)
        pixels.bytes.withUnsafeMutableBufferPointer { output in
            file.copyStoredPixels(
                from: UnsafeRawBufferPointer(buffer), rowPixels: tileSize.width, rows: rows, columns: columns,
                to: output.baseAddress!, rowPixels: rowPixels, transform: sampleTransform)
        }
    }

    private func readConverted(_ file: TIFFFile, x0: Int, y0: Int, into pixels: inout PixelBuffer) throws(ImageDecodingError) {
        if convertedTile == nil {
            convertedTile = try limits.zeroedBuffer(width: tileSize.width, rows: tileSize.height, elementsPerPixel: 1)
        }
        guard let raster = convertedTile?.elements else { return }
        guard file.library.TIFFReadRGBATileExt(file.tiff, UInt32(x0), UInt32(y0), raster.baseAddress, 1) != 0 else {
            throw file.failure()
        }
        // The converter's rows run bottom-up from the tile's last row, edge tiles included.
        let channels = pixelFormat.bytesPerPixel
        let (width, height, tileWidth, tileHeight) = (pixels.width, pixels.height, tileSize.width, tileSize.height)
        pixels.bytes.withUnsafeMutableBufferPointer { output in
            for row in 0..<height {
                let from = (tileHeight - 1 - row) * tileWidth
                for column in 0..<width {
                    file.storeConverted(raster[from + column], at: output.baseAddress! + (row * width + column) * channels)
                }
            }
        }
    }
}
