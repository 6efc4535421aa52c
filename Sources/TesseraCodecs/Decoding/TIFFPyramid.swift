import CTesseraTIFF
import FoundationEssentials
public import TesseraCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A tiled TIFF whose images are the levels of one pyramid, each a whole factor smaller than the
/// one before (halves as `vips tiffsave --tile --pyramid` writes them, the files iipsrv serves;
/// thirds or quarters from other writers), in the file's main chain of directories or in its first
/// image's SubIFDs (OME-TIFF, `vips tiffsave --subifd`), read one tile at a time from the level a
/// view needs: nothing is derived from the file and no more than one tile is decoded at a time.
///
/// Not thread-safe: a reader holds one libtiff handle per level, and one thread uses it at a time.
/// Hosts that read concurrently keep a few readers per file (they are cheap to open: one image
/// directory per level).
public final class TIFFPyramid {
    /// The size of each level, full size first, each a whole factor smaller than the one before.
    public let levelSizes: [PixelSize]
    /// Each level's downsample from the first when the levels were found as whole-factor steps
    /// (the product of the steps: a 10000×300 image's 157×5 level is 64, which its sizes' ratio
    /// would not say); nil for levels a caller chose.
    public private(set) var levelDownsamples: [Int]?
    /// The first level's header, as one image (the other levels are not pages of it).
    public let properties: ImageProperties
    /// Pixels of one stored tile; tiles at a level's right and bottom edges are returned cropped.
    public let tileSize: PixelSize
    /// The format every tile decodes to: the stored samples', with alpha when the levels have masks.
    public let pixelFormat: PixelFormat

    private let levels: [TIFFFile]
    /// Each level's transparency mask (GDAL's internal masks), nil for a level without one.
    private let masks: [TIFFMask?]
    /// The format the stored samples decode to, before a mask's alpha.
    private let storedFormat: PixelFormat
    private let limits: AllocationLimits
    /// Converts every tile to sRGB from the file's profile (``DecodeOptions/colorManagement``);
    /// nil when there is nothing to convert, or when samples are converted as they are read
    /// (``sampleTransform``: 16-bit ones, CMYK, Lab).
    private let colorTransform: ColorTransform?
    private let sampleTransform: ColorTransform?
    /// The first level's ICC profile, which ``storedTile(level:column:row:)`` embeds.
    private let profile: ICCProfile?
    /// One tile as stored, or as libtiff's RGBA converter writes it; allocated on first use.
    private var tileBuffer: ZeroedBuffer<UInt8>?
    private var convertedTile: ZeroedBuffer<UInt32>?

    /// Opens the pyramid of the TIFF at `path`: the first image and, after it, the images of its
    /// SubIFDs when it has any, else the directories that follow it, as long as each is tiled like
    /// the first (same tile size, pixel format and sample depth) and a whole factor smaller than
    /// the one before (each side the larger one's divided by the same factor, rounded either way); the first image that is not ends the pyramid (a label
    /// or a macro photo may follow).
    ///
    /// - Returns: nil when the file is a TIFF but no such pyramid: its first image is stored in
    ///   strips, has no smaller levels after it, or is turned by an orientation tag.
    /// - Throws: what a decode of the file would (``ImageDecodingError``).
    public convenience init?(path: String, options: DecodeOptions = DecodeOptions()) throws(ImageDecodingError) {
        let fileByteCount = try TIFFFile.fileByteCount(path)
        let first = try TIFFFile(.file(path), fileByteCount: fileByteCount, limits: options.limits)
        guard first.isTiled, first.orientation == .up else { return nil }
        var levels = [first], downsamples = [1]
        let subdirectories = first.subdirectories(limit: Self.maximumLevelCount)
        let directoryCount = min(Int(first.library.TIFFNumberOfDirectories(first.tiff)), Self.maximumLevelCount)
        // In the main chain, masks (NewSubfileType bit 2: GDAL's, between a COG's levels) are
        // told apart from the levels first, and matched to them after.
        let chain = subdirectories.isEmpty ? try TIFFDirectorySummary.directories(ofFileAt: path, options: options) : []
        let following =
            subdirectories.isEmpty
            ? chain.dropFirst().prefix(directoryCount).filter { $0.subfileType & 4 == 0 }.map { TIFFImageAddress.directory($0.index) }
            : subdirectories
        for image in following {
            guard let next = try? TIFFFile(.file(path), fileByteCount: fileByteCount, limits: options.limits, image: image),
                let last = levels.last, Self.continues(levels, with: next), let step = Self.step(next.size, below: last.size)
            else { break }
            levels.append(next)
            downsamples.append(downsamples[downsamples.count - 1] * step)
        }
        guard levels.count > 1 else { return nil }
        let maskDirectories = chain.filter { $0.subfileType & 4 != 0 }
        var masks: [TIFFMask?] = []
        for level in levels {
            let directory = maskDirectories.first { $0.size == level.size && $0.tileSize == level.pieceSize }
            masks.append(
                try directory.flatMap { directory throws(ImageDecodingError) in
                    try TIFFMask(
                        path: path, fileByteCount: fileByteCount, directory: directory.index, size: level.size, tileSize: level.pieceSize,
                        limits: options.limits)
                })
        }
        self.init(levels: levels, masks: masks, fileByteCount: fileByteCount, options: options)
        levelDownsamples = downsamples
    }

    /// Opens the levels the caller has told from the file's other images (a slide's, whose
    /// directories a thumbnail separates and whose steps are 4×): `images`, full size first,
    /// each tiled like the first and smaller than the one before. A tile of length 0 in them is a
    /// missing one: ``tile(level:column:row:)`` gives it as background (white).
    ///
    /// - Throws: ``ImageDecodingError/unsupported(reason:)`` when the images are no such
    ///   pyramid, or what a decode of the file would.
    public convenience init(path: String, images: [TIFFImageAddress], options: DecodeOptions = DecodeOptions()) throws(ImageDecodingError) {
        let fileByteCount = try TIFFFile.fileByteCount(path)
        var levels: [TIFFFile] = []
        for image in images {
            let level = try TIFFFile(
                .file(path), fileByteCount: fileByteCount, limits: options.limits, image: image, layoutCheck: .missingPiecesAllowed)
            guard level.isTiled, level.orientation == .up, Self.continues(levels, with: level),
                levels.last.map({ level.size.width < $0.size.width && level.size.height <= $0.size.height }) ?? true
            else { throw .unsupported(reason: "image \(image) of the TIFF is not a level of the pyramid before it") }
            levels.append(level)
        }
        guard !levels.isEmpty else { throw .unsupported(reason: "a TIFF pyramid of no level") }
        self.init(levels: levels, masks: levels.map { _ in nil }, fileByteCount: fileByteCount, options: options)
    }

    /// The most levels a pyramid is read with: halvings from 2³¹ px reach 1 px in 32; a file
    /// claiming more is hostile (each level is a libtiff handle per reader).
    public static let maximumLevelCount = 32

    private init(levels: [TIFFFile], masks: [TIFFMask?], fileByteCount: Int, options: DecodeOptions) {
        let first = levels[0]
        self.levels = levels
        self.masks = masks
        limits = options.limits
        levelSizes = levels.map(\.size)
        tileSize = first.pieceSize
        storedFormat = first.samples.decodedFormat
        pixelFormat = storedFormat.withAlpha(storedFormat.hasAlpha || masks.contains { $0 != nil })
        var properties = first.properties(fileByteCount: fileByteCount)
        properties.pageCount = 1
        self.properties = properties
        let profile = properties.iccProfile
        self.profile = profile
        sampleTransform = first.samples.transform(options.colorManagement, profile: profile)
        colorTransform =
            options.colorManagement == .convertToSRGB && sampleTransform == nil
            ? profile.flatMap { ColorConverter.shared.transform(from: $0, format: first.samples.decodedFormat) } : nil
    }

    /// Whether `next` is tiled as the levels before it are: tile size, pixel format, sample depth, reading.
    private static func continues(_ levels: [TIFFFile], with next: TIFFFile) -> Bool {
        guard let first = levels.first else { return true }
        return next.isTiled && next.pieceSize == first.pieceSize && next.samples.decodedFormat == first.samples.decodedFormat
            && next.samples.bitsPerSample == first.samples.bitsPerSample && next.samples.readsNatively == first.samples.readsNatively
    }

    /// The whole factor (2 or more) by which `smaller` is `larger` made smaller, the same on both
    /// sides, each side rounded down or up: the step to the next level of a pyramid (2 for halves,
    /// 3 for thirds…); nil when `smaller` is no such level.
    static func step(_ smaller: PixelSize, below larger: PixelSize) -> Int? {
        guard smaller.width > 0, smaller.height > 0, smaller.width < larger.width else { return nil }
        let factor = larger.width / smaller.width
        return [factor, factor + 1].first { step in
            step >= 2
                && [(larger.width, smaller.width), (larger.height, smaller.height)].allSatisfy { large, small in
                    small == large / step || small == (large + step - 1) / step
                }
        }
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
            width: min(tileSize.width, size.width - x0), height: min(tileSize.height, size.height - y0), format: storedFormat)
        let index = file.library.TIFFComputeTile(file.tiff, UInt32(x0), UInt32(y0), 0, 0)
        if file.library.TIFFGetStrileByteCount(file.tiff, index) == 0 {
            // A missing tile (only levels opened by directory have them): background, never black.
            pixels.bytes.withUnsafeMutableBufferPointer { $0.update(repeating: 0xFF) }
            return pixels.converted(to: pixelFormat)
        }
        if Self.jpeg2000Compressions.contains(file.compression) {
            try readCodestream(file, index: index, into: &pixels)
        } else if file.samples.readsNatively {
            try readStored(file, index: index, into: &pixels)
        } else {
            try readConverted(file, x0: x0, y0: y0, into: &pixels)
        }
        colorTransform?.apply(to: &pixels)
        guard pixelFormat != storedFormat else { return pixels }
        pixels = pixels.converted(to: pixelFormat)
        try masks[level]?.apply(to: &pixels, column: column, row: row)
        return pixels
    }

    /// Tile `(column, row)` of level `level` as stored, made a JPEG file any reader takes
    /// (`JPEGTileSplice`: the shared tables, the RGB coding and the ICC profile put in), with no
    /// pixel decoded; nil when it cannot be one: not JPEG-compressed, missing, reaching past the
    /// level's right or bottom edge (stored padded to a whole tile, where a client's tile is cropped),
    /// or with pixels its mask says have no data (a JPEG has no alpha to say so).
    ///
    /// - Throws: what libtiff reports for a tile it cannot read.
    public func storedTile(level: Int, column: Int, row: Int) throws(ImageDecodingError) -> [UInt8]? {
        guard levels.indices.contains(level), column >= 0, row >= 0 else { return nil }
        let file = levels[level], size = levelSizes[level]
        let x0 = column * tileSize.width, y0 = row * tileSize.height
        guard file.compression == Int(COMPRESSION_JPEG), x0 + tileSize.width <= size.width, y0 + tileSize.height <= size.height else {
            return nil
        }
        if let mask = masks[level], try !mask.isOpaque(column: column, row: row, width: tileSize.width, height: tileSize.height) {
            return nil
        }
        guard let stored = try rawTile(file, index: file.library.TIFFComputeTile(file.tiff, UInt32(x0), UInt32(y0), 0, 0)) else {
            return nil
        }
        var length: UInt32 = 0
        var bytes: UnsafeRawPointer?
        let tables =
            tessera_tiff_get_bytes(file.tiff, UInt32(TIFFTAG_JPEGTABLES), &length, &bytes) != 0 && bytes != nil
            ? Array(UnsafeRawBufferPointer(start: bytes, count: Int(length))) : nil
        return JPEGTileSplice.file(
            tile: stored, tables: tables, codedAsRGB: file.samples.photometric == Int(PHOTOMETRIC_RGB), profile: profile?.data)
    }

    /// Aperio's JPEG 2000 tiles, each a codestream (libtiff has no codec for them; OpenJPEG decodes
    /// them, as OpenSlide does): 33003 of Y, Cb, Cr samples, 33005 of RGB (or of YCC with the
    /// codestream's own component transform).
    static let jpeg2000Compressions: Set<Int> = [jpeg2000YCbCr, 33005]
    static let jpeg2000YCbCr = 33003

    /// Tile `index` of `file` as stored, or nil for a missing one (length 0).
    private func rawTile(_ file: TIFFFile, index: UInt32) throws(ImageDecodingError) -> [UInt8]? {
        let byteCount = Int(clamping: file.library.TIFFGetStrileByteCount(file.tiff, index))
        guard byteCount > 0 else { return nil }
        guard byteCount <= limits.maximumByteCount else { throw .corrupt(reason: "a stored TIFF tile of \(byteCount) bytes, over the limit") }
        var stored = [UInt8](repeating: 0, count: byteCount)
        let read = stored.withUnsafeMutableBytes { Int(file.library.TIFFReadRawTile(file.tiff, index, $0.baseAddress, tmsize_t(byteCount))) }
        guard read == byteCount else { throw read < 0 ? file.failure() : .truncated(reason: "a TIFF tile ends past the end of the file") }
        return stored
    }

    /// A JPEG 2000 tile (``jpeg2000Compressions``) decoded by the codecs' JPEG 2000 reader, its
    /// top-left `pixels`' size kept (edge tiles are coded whole).
    private func readCodestream(_ file: TIFFFile, index: UInt32, into pixels: inout PixelBuffer) throws(ImageDecodingError) {
        guard let stored = try rawTile(file, index: index) else { return }
        // Room for OpenJPEG's planes beside the tile's pixels; a codestream claiming more is refused.
        var options = DecodeOptions(maximumPixelCount: 4 * tileSize.width * tileSize.height)
        options.colorManagement = .keepSourceProfile
        options.jpeg2000SamplesAreYCbCr = file.compression == Self.jpeg2000YCbCr
        let decoded = try ImageDecoder(options: options).decode(.data(Data(stored))).pixels
        guard decoded.format == storedFormat, decoded.width >= pixels.width, decoded.height >= pixels.height,
            let cut = decoded.cropped(x: 0, y: 0, width: pixels.width, height: pixels.height)
        else { throw .corrupt(reason: "a JPEG 2000 tile decoded to \(decoded.width)×\(decoded.height) \(decoded.format), not the level's") }
        pixels = cut
    }

    private func readStored(_ file: TIFFFile, index: UInt32, into pixels: inout PixelBuffer) throws(ImageDecodingError) {
        let pixelBytes = file.samples.samplesPerPixel * file.samples.bitsPerSample / 8
        if tileBuffer == nil {
            tileBuffer = try limits.zeroedBuffer(width: tileSize.width, rows: tileSize.height, elementsPerPixel: pixelBytes)
        }
        guard let buffer = tileBuffer?.elements else { return }
        let read = Int(file.library.TIFFReadEncodedTile(file.tiff, index, buffer.baseAddress, tmsize_t(buffer.count)))
        guard read >= 0 else { throw file.failure() }
        let needed = pixels.height * tileSize.width * pixelBytes
        guard read >= needed else { throw .corrupt(reason: "a TIFF tile decoded to \(read) bytes of the \(needed) its rows need") }
        let (columns, rows, rowPixels) = (pixels.width, pixels.height, pixels.width)
        pixels.bytes.withUnsafeMutableBufferPointer { output in
            file.samples.copyStoredPixels(
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
        let channels = storedFormat.bytesPerPixel
        let (width, height, tileWidth, tileHeight) = (pixels.width, pixels.height, tileSize.width, tileSize.height)
        pixels.bytes.withUnsafeMutableBufferPointer { output in
            for row in 0..<height {
                let from = (tileHeight - 1 - row) * tileWidth
                for column in 0..<width {
                    file.samples.storeConverted(raster[from + column], at: output.baseAddress! + (row * width + column) * channels)
                }
            }
        }
    }
}
