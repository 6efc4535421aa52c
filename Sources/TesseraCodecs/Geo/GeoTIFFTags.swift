import CTesseraTIFF
import TesseraCore

/// The georeferencing tags of a TIFF's first image, as stored (GeoTIFF 1.1, and GDAL's nodata):
/// what ``GeoReference`` is made from. Read without decoding a pixel.
public struct GeoTIFFTags: Sendable, Equatable {
    /// ModelPixelScaleTag (33550): the size of a pixel in model units, x, y, z.
    public var pixelScale: [Double] = []
    /// ModelTiepointTag (33922): (i, j, k, x, y, z) sextuples tying raster points to model points.
    public var tiepoints: [Double] = []
    /// ModelTransformationTag (34264): a 4×4 row-major matrix from raster to model.
    public var transformation: [Double] = []
    /// GeoKeyDirectoryTag (34735): the header (version, revisions, key count) and 4 shorts a key.
    public var keyDirectory: [UInt16] = []
    /// GeoDoubleParamsTag (34736): the values of the keys stored as doubles.
    public var doubleParameters: [Double] = []
    /// GeoAsciiParamsTag (34737): the values of the keys stored as text, each ending in `|`.
    public var asciiParameters = ""
    /// GDAL_NODATA (42113): the value that marks a sample as no data, as text (`0`, `-9999`, `nan`).
    public var noData: String?

    /// The most values kept of any one tag: a GeoTIFF's run to a few dozen; a hostile file's
    /// could fill memory.
    public static let valueLimit = 1 << 16

    public init() {}

    /// Whether the image is georeferenced at all: a key directory and a way from raster to model.
    public var isGeoreferenced: Bool { !keyDirectory.isEmpty && (!transformation.isEmpty || !tiepoints.isEmpty) }

    /// The tags of the first image of the TIFF `source`.
    ///
    /// - Throws: ``ImageDecodingError`` when it is not a TIFF libtiff can open.
    public static func read(_ source: ImageSource, options: DecodeOptions = DecodeOptions()) throws(ImageDecodingError) -> GeoTIFFTags {
        let byteCount = try source.filePath.map { path throws(ImageDecodingError) in try TIFFFile.fileByteCount(path) } ?? 0
        let file = try TIFFFile(source, fileByteCount: byteCount, limits: options.limits, layoutCheck: .none)
        var tags = GeoTIFFTags()
        tags.pixelScale = doubles(file.tiff, 33550)
        tags.tiepoints = doubles(file.tiff, 33922)
        tags.transformation = doubles(file.tiff, 34264)
        tags.keyDirectory = shorts(file.tiff, 34735)
        tags.doubleParameters = doubles(file.tiff, 34736)
        tags.asciiParameters = text(file.tiff, 34737) ?? ""
        tags.noData = text(file.tiff, 42113)
        return tags
    }

    /// Tag `tag`'s values when stored as DOUBLE (libtiff's type 12), as GeoTIFF says they are.
    private static func doubles(_ tiff: OpaquePointer, _ tag: UInt32) -> [Double] { array(tiff, tag, type: 12) }

    /// Tag `tag`'s values when stored as SHORT (type 3).
    private static func shorts(_ tiff: OpaquePointer, _ tag: UInt32) -> [UInt16] { array(tiff, tag, type: 3) }

    /// At most ``valueLimit`` values; none when the tag is absent or of another type.
    private static func array<T>(_ tiff: OpaquePointer, _ tag: UInt32, type: Int32) -> [T] {
        var count: UInt32 = 0, found: UnsafeRawPointer?, dataType: Int32 = 0
        guard tessera_tiff_get_array(tiff, tag, &count, &found, &dataType) != 0, dataType == type, let found else { return [] }
        return Array(UnsafeBufferPointer(start: found.assumingMemoryBound(to: T.self), count: min(Int(count), valueLimit)))
    }

    /// An ASCII tag's text up to its first NUL, at most ``valueLimit`` bytes.
    private static func text(_ tiff: OpaquePointer, _ tag: UInt32) -> String? {
        var count: UInt32 = 0, found: UnsafeRawPointer?, dataType: Int32 = 0
        guard tessera_tiff_get_array(tiff, tag, &count, &found, &dataType) != 0, dataType == 2, let found else { return nil }
        let bytes = UnsafeBufferPointer(start: found.assumingMemoryBound(to: UInt8.self), count: min(Int(count), valueLimit))
        return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }
}
