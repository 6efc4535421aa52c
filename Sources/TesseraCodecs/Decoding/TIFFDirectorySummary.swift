import CTesseraTIFF
public import TesseraCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One image directory of a TIFF as a reader sorts them before reading any pixel: a slide's
/// levels, thumbnail, label and macro; an overview; a mask. Tags only: nothing is decoded.
public struct TIFFDirectorySummary: Sendable, Equatable {
    /// The directory's place in the file, from 0.
    public var index: Int
    /// The image's size in pixels.
    public var size: PixelSize
    /// The stored tiles' size in pixels; nil for an image in strips.
    public var tileSize: PixelSize?
    /// Compression (tag 259): 1 none, 5 LZW, 7 JPEG, 8 Deflate, 33003/33005 Aperio's JPEG 2000…
    public var compression: Int
    /// NewSubfileType (tag 254): bit 0 a reduced image, bit 2 a mask; Aperio marks a label 1 and a
    /// macro 9.
    public var subfileType: Int
    /// ImageDescription (tag 270), at most ``descriptionLimit`` bytes of it; empty when absent.
    public var description: String
    /// Where the directory is in the file, in bytes from its start.
    public var offset: UInt64
    /// The first and last offsets of the image's strips or tiles present (what a Cloud-Optimized
    /// GeoTIFF's layout is checked by); nil when it has none, more than ``pieceLimit``, or when not
    /// asked for.
    public var dataOffsets: ClosedRange<UInt64>?

    public init(
        index: Int, size: PixelSize, tileSize: PixelSize?, compression: Int, subfileType: Int, description: String, offset: UInt64 = 0,
        dataOffsets: ClosedRange<UInt64>? = nil
    ) {
        self.index = index
        self.size = size
        self.tileSize = tileSize
        self.compression = compression
        self.subfileType = subfileType
        self.description = description
        self.offset = offset
        self.dataOffsets = dataOffsets
    }

    /// The most strips or tiles whose offsets are looked at: a 100,000² level in 256-px tiles has 153,000.
    public static let pieceLimit = 1 << 20

    /// The longest description kept: a slide's runs to a few kilobytes; a hostile file's could be the file.
    public static let descriptionLimit = 64 << 10

    /// The directories of the TIFF at `path` (at most 65,535), in order, up to and including the
    /// first for which `continues` is false: a reader that knows from the first image that the file
    /// is not its kind does not walk a 2,000-page scan's directories.
    ///
    /// - Parameters:
    ///   - path: the TIFF.
    ///   - options: the limits libtiff is held to.
    ///   - readsDataOffsets: also find each image's ``dataOffsets`` (a pass over its strip or tile
    ///     table: what a layout check needs, not a reader).
    ///   - continues: whether to go on past a directory.
    /// - Throws: ``ImageDecodingError`` when the file is not a TIFF libtiff can open.
    public static func directories(
        ofFileAt path: String, options: DecodeOptions = DecodeOptions(), readsDataOffsets: Bool = false,
        while continues: (TIFFDirectorySummary) -> Bool = { _ in true }
    ) throws(ImageDecodingError) -> [TIFFDirectorySummary] {
        let file = try TIFFFile(.file(path), fileByteCount: try TIFFFile.fileByteCount(path), limits: options.limits, layoutCheck: .none)
        let (library, tiff) = (file.library, file.tiff)
        guard library.TIFFSetDirectory(tiff, 0) != 0 else { return [] }
        var summaries: [TIFFDirectorySummary] = []
        repeat {
            var width: UInt32 = 0, height: UInt32 = 0, tileWidth: UInt32 = 0, tileHeight: UInt32 = 0, kind: UInt32 = 0
            var compression: UInt16 = 1
            _ = tessera_tiff_get_uint32(tiff, UInt32(TIFFTAG_IMAGEWIDTH), &width)
            _ = tessera_tiff_get_uint32(tiff, UInt32(TIFFTAG_IMAGELENGTH), &height)
            _ = tessera_tiff_get_uint32(tiff, UInt32(TIFFTAG_SUBFILETYPE), &kind)
            _ = tessera_tiff_get_uint16(tiff, UInt32(TIFFTAG_COMPRESSION), &compression)
            var tileSize: PixelSize?
            if library.TIFFIsTiled(tiff) != 0 {
                _ = tessera_tiff_get_uint32(tiff, UInt32(TIFFTAG_TILEWIDTH), &tileWidth)
                _ = tessera_tiff_get_uint32(tiff, UInt32(TIFFTAG_TILELENGTH), &tileHeight)
                tileSize = PixelSize(width: Int(tileWidth), height: Int(tileHeight))
            }
            var text: UnsafePointer<CChar>?
            var description = ""
            if tessera_tiff_get_string(tiff, UInt32(TIFFTAG_IMAGEDESCRIPTION), &text) != 0, let text {
                let length = strnlen(text, descriptionLimit)
                description = String(decoding: UnsafeRawBufferPointer(start: text, count: length), as: UTF8.self)
            }
            summaries.append(
                TIFFDirectorySummary(
                    index: summaries.count, size: PixelSize(width: Int(width), height: Int(height)), tileSize: tileSize,
                    compression: Int(compression), subfileType: Int(kind), description: description,
                    offset: library.TIFFCurrentDirOffset(tiff), dataOffsets: readsDataOffsets ? dataOffsets(library, tiff) : nil))
        } while summaries.count < TIFFFile.maximumDirectoryCount && continues(summaries[summaries.count - 1])
            && library.TIFFReadDirectory(tiff) == 1
        return summaries
    }

    /// The first and last offsets of the current directory's pieces present (length over 0).
    private static func dataOffsets(_ library: TesseraTIFF, _ tiff: OpaquePointer) -> ClosedRange<UInt64>? {
        let count = library.TIFFIsTiled(tiff) != 0 ? library.TIFFNumberOfTiles(tiff) : library.TIFFNumberOfStrips(tiff)
        guard count > 0, count <= pieceLimit else { return nil }
        var (first, last) = (UInt64.max, UInt64(0))
        for piece in 0..<count where library.TIFFGetStrileByteCount(tiff, piece) > 0 {
            let offset = library.TIFFGetStrileOffset(tiff, piece)
            (first, last) = (min(first, offset), max(last, offset))
        }
        return first <= last ? first...last : nil
    }
}
