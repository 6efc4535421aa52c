import CTesseraTIFF
public import TesseraCore

/// Writes a tiled pyramidal TIFF through libtiff, level by level and tile by tile, so memory is the
/// caller's tiles, never a level: full resolution first, then each given reduced level, every
/// level in square tiles (JPEG, RGB stored as YCbCr 4:2:0 with shared tables, or Deflate). Two
/// layouts: the levels one after the other in the file's main chain (``Layout/chain``, as `vips
/// tiffsave --tile --pyramid` writes them: what iipsrv, OpenSlide and Tessera read in place), or
/// OME-TIFF (``Layout/ome(micronsPerPixel:)``: the reduced levels in the first image's SubIFDs and
/// the microscope's scale in its OME-XML, as Bio-Formats, QuPath and Tessera read it).
///
/// Not thread-safe; one writer per file. A writer dropped before ``finish()`` leaves a file that
/// is not whole: write to a temporary name and move it into place.
public final class TIFFPyramidWriter {
    /// How tiles are compressed.
    public enum Compression: Sendable, Hashable {
        /// Lossy, at a libjpeg quality of 1–100; not for images with alpha.
        case jpeg(quality: Int)
        /// Lossless, with the horizontal predictor.
        case deflate
    }

    /// Where the reduced levels are, and what says the scale.
    public enum Layout: Sendable, Hashable {
        /// Every level in the main chain, those after the first marked reduced (NewSubfileType 1).
        case chain
        /// OME-TIFF: the first image carries an OME-XML description with `PhysicalSizeX` and `Y`
        /// in µm, the reduced levels are its SubIFDs.
        case ome(micronsPerPixel: Double)
    }

    /// Each level's size, full resolution first.
    public let levelSizes: [PixelSize]
    public let format: PixelFormat
    /// The tiles' side in pixels.
    public let tileSide: Int
    private let compression: Compression
    private let layout: Layout
    private let iccProfile: ICCProfile?
    private let orientation: Orientation
    private let library: TesseraTIFF
    private let messagesHandle: CHandle<UnsafeMutablePointer<TesseraTIFFMessages>>
    private let handle: CHandle<OpaquePointer>
    /// The level whose tiles are being written; -1 before the first.
    private var level = -1
    private var tileBuffer: [UInt8]

    /// Creates the file at `path` (replacing any) for a pyramid of `levelSizes` (full resolution
    /// first, each smaller than the one before, at most 64) of `format` pixels: BigTIFF when the
    /// pixels could pass 4 GB.
    ///
    /// - Parameters:
    ///   - path: the file written.
    ///   - levelSizes: each level's size, full resolution first.
    ///   - format: the pixels of every tile.
    ///   - tileSide: the tiles' side, a multiple of 16 (TIFF's rule for tiles).
    ///   - compression: how tiles are compressed.
    ///   - layout: where the reduced levels go, and whether the scale is written.
    ///   - iccProfile: embedded in every level (the pixels are in its space).
    ///   - orientation: the Orientation tag (the pixels are written as stored).
    /// - Throws: ``ImageEncodingError/invalidParameter(_:)`` for sizes, a tile side or a quality
    ///   that cannot be written (JPEG with alpha among them); ``ImageEncodingError/encoderFailed(_:)``
    ///   when the file cannot be created.
    public init(
        path: String, levelSizes: [PixelSize], format: PixelFormat, tileSide: Int = 256, compression: Compression, layout: Layout,
        iccProfile: ICCProfile? = nil, orientation: Orientation = .up
    ) throws(ImageEncodingError) {
        guard let first = levelSizes.first, levelSizes.count <= 64, first.width > 0, first.height > 0,
            zip(levelSizes, levelSizes.dropFirst()).allSatisfy({ $1.width > 0 && $1.height > 0 && $1.width <= $0.width && $1.height <= $0.height })
        else { throw .invalidParameter("a pyramid of \(levelSizes.count) levels that do not shrink") }
        guard tileSide >= 16, tileSide <= 4096, tileSide % 16 == 0 else { throw .invalidParameter("TIFF tiles of \(tileSide) px") }
        if case .jpeg(let quality) = compression {
            guard format.alphaChannelIndex == nil else { throw .invalidParameter("JPEG has no alpha: write it with Deflate") }
            guard (1...100).contains(quality) else { throw .invalidParameter("JPEG quality \(quality)") }
        }
        if case .ome(let microns) = layout, !(microns.isFinite && microns > 0) {
            throw .invalidParameter("a scale of \(microns) µm per pixel")
        }
        do { library = try Libraries.tiff.get() } catch { throw .libraryUnavailable(error.description) }
        self.levelSizes = levelSizes
        self.format = format
        self.tileSide = tileSide
        self.compression = compression
        self.layout = layout
        self.iccProfile = iccProfile
        self.orientation = orientation
        tileBuffer = [UInt8](repeating: 0, count: tileSide * tileSide * format.bytesPerPixel)
        messagesHandle = .allocate(TesseraTIFFMessages()) { _ in }
        // Classic TIFF's offsets stop at 4 GB; Deflate may grow incompressible pixels a little.
        let pixelBytes = levelSizes.reduce(0) { $0 + $1.width * $1.height } * format.bytesPerPixel
        guard let tiff = tessera_tiff_create_file(path, pixelBytes > 3 << 30 ? 1 : 0, messagesHandle.pointer) else {
            throw .encoderFailed(Self.message(messagesHandle.pointer, path: path))
        }
        let library = self.library
        handle = CHandle(tiff) { library.TIFFClose($0) }
    }

    /// Writes tile (`column`, `row`) of level `level`: `pixels`, cropped at the level's right and
    /// bottom edges as a level's tiles are (the stored tile is filled out by repeating its last
    /// column and row). Levels are written in order; starting one ends the one before, whose tiles
    /// must all have been written.
    ///
    /// - Throws: ``ImageEncodingError/invalidParameter(_:)`` for a tile outside the level, of
    ///   another size or format, or a level out of order; ``ImageEncodingError/encoderFailed(_:)``
    ///   for libtiff's failures.
    public func write(_ pixels: PixelBuffer, level: Int, column: Int, row: Int) throws(ImageEncodingError) {
        guard level == self.level || level == self.level + 1, levelSizes.indices.contains(level) else {
            throw .invalidParameter("level \(level) written after level \(self.level)")
        }
        if level != self.level { try begin(level) }
        let size = levelSizes[level], x = column * tileSide, y = row * tileSide
        guard column >= 0, row >= 0, x < size.width, y < size.height, pixels.format == format,
            pixels.width == min(tileSide, size.width - x), pixels.height == min(tileSide, size.height - y)
        else { throw .invalidParameter("a \(pixels.width)×\(pixels.height) tile at \(column),\(row) of a \(size) level") }
        fillTile(from: pixels)
        let tiff = handle.pointer
        let index = library.TIFFComputeTile(tiff, UInt32(x), UInt32(y), 0, 0)
        let written = tileBuffer.withUnsafeMutableBytes { library.TIFFWriteEncodedTile(tiff, index, $0.baseAddress, tmsize_t($0.count)) }
        guard written >= 0 else { throw failure() }
    }

    /// Ends the last level and the file.
    ///
    /// - Throws: ``ImageEncodingError/invalidParameter(_:)`` when levels were not written;
    ///   ``ImageEncodingError/encoderFailed(_:)`` for libtiff's failures.
    public func finish() throws(ImageEncodingError) {
        guard level == levelSizes.count - 1 else { throw .invalidParameter("\(level + 1) of \(levelSizes.count) levels written") }
        guard library.TIFFWriteDirectory(handle.pointer) != 0 else { throw failure() }
    }

    /// Ends the level before (when there is one) and sets the tags of `level`.
    private func begin(_ level: Int) throws(ImageEncodingError) {
        let tiff = handle.pointer
        if level > 0 { guard library.TIFFWriteDirectory(tiff) != 0 else { throw failure() } }
        self.level = level
        let size = levelSizes[level]
        var description: String?
        if level == 0, case .ome(let microns) = layout { description = omeDescription(micronsPerPixel: microns) }
        let subIFDs = level == 0 && layout != .chain ? levelSizes.count - 1 : 0
        let quality: Int32, compressionTag: UInt16
        switch compression {
        case .jpeg(let jpegQuality): (quality, compressionTag) = (Int32(jpegQuality), 7)
        case .deflate: (quality, compressionTag) = (0, 8)
        }
        let profile = iccProfile?.data ?? []
        let taken = profile.withUnsafeBytes { profileBytes in
            withOptionalCString(description) { text in
                var image = TesseraTIFFTiledImage(
                    width: UInt32(size.width), height: UInt32(size.height), tileSide: UInt32(tileSide),
                    samples: UInt16(format.bytesPerPixel), compression: compressionTag, jpegQuality: quality,
                    subfileType: level == 0 ? 0 : 1, orientation: UInt16(orientation.rawValue), subIFDCount: UInt16(subIFDs),
                    description: text, iccProfile: profile.isEmpty ? nil : profileBytes.baseAddress,
                    iccProfileLength: UInt32(profile.count))
                return tessera_tiff_set_tiled_image(tiff, &image)
            }
        }
        guard taken != 0 else { throw failure() }
    }

    /// `pixels` copied to the top-left of the stored tile, its last column and row repeated to the
    /// tile's edges (a JPEG block across an image's edge codes no false edge).
    private func fillTile(from pixels: PixelBuffer) {
        let channels = format.bytesPerPixel, rowBytes = pixels.width * channels, tileRowBytes = tileSide * channels
        pixels.bytes.withUnsafeBufferPointer { source in
            tileBuffer.withUnsafeMutableBufferPointer { tile in
                for y in 0..<tileSide {
                    let from = min(y, pixels.height - 1) * rowBytes
                    let target = y * tileRowBytes
                    (tile.baseAddress! + target).update(from: source.baseAddress! + from, count: rowBytes)
                    for x in pixels.width..<tileSide {
                        for channel in 0..<channels { tile[target + x * channels + channel] = source[from + rowBytes - channels + channel] }
                    }
                }
            }
        }
    }

    /// The OME-XML of the first image: one image of one plane, `format`'s samples interleaved.
    private func omeDescription(micronsPerPixel microns: Double) -> String {
        let size = levelSizes[0], samples = format.bytesPerPixel
        return #"<?xml version="1.0" encoding="UTF-8"?>"#
            + #"<OME xmlns="http://www.openmicroscopy.org/Schemas/OME/2016-06" Creator="Tessera">"#
            + #"<Image ID="Image:0"><Pixels ID="Pixels:0" DimensionOrder="XYCZT" Type="uint8" "#
            + #"SizeX="\#(size.width)" SizeY="\#(size.height)" SizeC="\#(samples)" SizeZ="1" SizeT="1" Interleaved="true" "#
            + #"PhysicalSizeX="\#(microns)" PhysicalSizeXUnit="µm" PhysicalSizeY="\#(microns)" PhysicalSizeYUnit="µm">"#
            + #"<Channel ID="Channel:0:0" SamplesPerPixel="\#(samples)"/><TiffData IFD="0" PlaneCount="1"/></Pixels></Image></OME>"#
    }

    private func failure() -> ImageEncodingError { .encoderFailed(Self.message(messagesHandle.pointer, path: nil)) }

    private static func message(_ messages: UnsafeMutablePointer<TesseraTIFFMessages>, path: String?) -> String {
        let message = cMessage(messages.pointee.error)
        guard !message.isEmpty else { return "libtiff could not write the file" }
        return path.map { message.replacing($0, with: "the file") } ?? message
    }
}

/// `body` with `text` as a C string, or nil.
private func withOptionalCString<Result>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> Result) -> Result {
    guard let text else { return body(nil) }
    return text.withCString { body($0) }
}
