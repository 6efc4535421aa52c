import CTesseraOpenSlide
public import TesseraCore

/// A whole-slide image opened by OpenSlide (libopenslide0, loaded on first use): the vendor formats
/// Tessera does not read natively (Hamamatsu NDPI and VMS, MIRAX, Leica SCN, Ventana BIF, Philips
/// TIFF, Sakura, Trestle, generic tiled TIFF). OpenSlide gives decoded pixels only, never a stored
/// tile's bytes; its handle is made once (opening is costly) and read from any number of threads
/// at once (OpenSlide's own rule), and closed when the last reference goes.
public final class OpenSlideFile: @unchecked Sendable {
    // @unchecked: `handle` is an openslide_t, whose reads are thread-safe; it is closed only in deinit.

    /// A level as OpenSlide stores it.
    public struct Level: Sendable, Equatable {
        /// The level's size in pixels.
        public let size: PixelSize
        /// Full-resolution pixels per level pixel, as OpenSlide reports it (4.0 or 4.016).
        public let downsample: Double
    }

    /// OpenSlide's name for the format (`hamamatsu`, `mirax`, `leica`, `generic-tiff`…).
    public let vendor: String
    /// Full resolution first.
    public let levels: [Level]
    /// Where the slide has no data, in sRGB: `openslide.background-color`, else white.
    public let background: [UInt8]
    /// Micrometres per pixel across from the vendor's metadata (`openslide.mpp-x`); nil for a
    /// generic TIFF, whose value is only a print resolution (72 dpi is 352.78 µm/px).
    public let micronsPerPixel: Double?
    /// The images beside the levels (`label`, `macro`, `thumbnail`…), by OpenSlide's names.
    public let associatedImages: [(name: String, size: PixelSize)]
    /// How the header reads for hosts: format `slide`, level 0's size, RGB.
    public let properties: ImageProperties
    private let handle: OpaquePointer
    private let table: TesseraOpenSlide
    /// The file's name, which stands for its path in errors (a server never shows a path).
    private let name: Substring
    private let path: String

    /// OpenSlide's vendor for the file at `path`, or nil when it reads none there or is not installed.
    public static func vendor(ofFileAt path: String) -> String? {
        guard let table = try? Libraries.openSlide.get(), let vendor = table.openslide_detect_vendor(path) else { return nil }
        return String(cString: vendor)
    }

    /// The slide at `path`.
    ///
    /// - Throws: ``ImageDecodingError/libraryUnavailable(reason:)`` without OpenSlide;
    ///   ``ImageDecodingError/unknownFormat`` for a file it reads no vendor in;
    ///   ``ImageDecodingError/corrupt(reason:)`` for one it cannot open.
    public init(path: String) throws(ImageDecodingError) {
        let table = try Libraries.openSlide.get()
        guard let vendor = table.openslide_detect_vendor(path) else { throw .unknownFormat }
        self.path = path
        name = path.split(separator: "/").last ?? Substring(path)
        guard let handle = table.openslide_open(path) else { throw .unknownFormat }
        self.handle = handle
        self.table = table
        self.vendor = String(cString: vendor)
        if let error = table.openslide_get_error(handle) {
            let reason = String(cString: error)
            table.openslide_close(handle)
            throw .corrupt(reason: "OpenSlide: " + reason.replacing(path, with: name))
        }
        let count = Int(max(0, table.openslide_get_level_count(handle)))
        var levels: [Level] = []
        for level in 0..<min(count, 32) {
            var width: Int64 = 0, height: Int64 = 0
            table.openslide_get_level_dimensions(handle, Int32(level), &width, &height)
            guard width > 0, height > 0, width <= Int64(Int32.max), height <= Int64(Int32.max) else { break }
            levels.append(
                Level(size: PixelSize(width: Int(width), height: Int(height)), downsample: table.openslide_get_level_downsample(handle, Int32(level)))
            )
        }
        self.levels = levels
        var associated: [(name: String, size: PixelSize)] = []
        if var names = table.openslide_get_associated_image_names(handle) {
            while associated.count < 16, let name = names.pointee {
                var width: Int64 = 0, height: Int64 = 0
                table.openslide_get_associated_image_dimensions(handle, name, &width, &height)
                if width > 0, height > 0, width <= Int64(Int32.max), height <= Int64(Int32.max) {
                    associated.append((String(cString: name), PixelSize(width: Int(width), height: Int(height))))
                }
                names += 1
            }
        }
        associatedImages = associated
        func property(_ key: String) -> String? { table.openslide_get_property_value(handle, key).map { String(cString: $0) } }
        background = property("openslide.background-color").flatMap(Self.rgb(hex:)) ?? [255, 255, 255]
        micronsPerPixel =
            self.vendor == "generic-tiff" ? nil : property("openslide.mpp-x").flatMap(Double.init).flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
        guard let first = levels.first else {
            table.openslide_close(handle)
            throw .corrupt(reason: "OpenSlide found no level in \(name)")
        }
        properties = ImageProperties(format: .slide, size: first.size, decodedFormat: .rgb8, fileByteCount: FileIdentity(path: path)?.byteCount ?? 0)
    }

    deinit { table.openslide_close(handle) }

    /// Reads `size` pixels of level `level` whose top-left is level-0 pixel `origin` into `argb`
    /// (`size.area` premultiplied ARGB words: transparent where the slide has no data).
    ///
    /// - Throws: ``ImageDecodingError/corrupt(reason:)`` when OpenSlide fails (its handle is then
    ///   of no further use, by OpenSlide's rule, and every later read fails alike).
    public func readRegion(level: Int, origin: (x: Int, y: Int), size: PixelSize, into argb: UnsafeMutablePointer<UInt32>) throws(ImageDecodingError)
    {
        table.openslide_read_region(handle, argb, Int64(origin.x), Int64(origin.y), Int32(level), Int64(size.width), Int64(size.height))
        if let error = table.openslide_get_error(handle) {
            throw .corrupt(reason: "OpenSlide: " + String(cString: error).replacing(path, with: name))
        }
    }

    /// Associated image `name` (one of ``associatedImages``: `label`, `macro`, `thumbnail`) into
    /// `argb` (its size's area of premultiplied ARGB words).
    ///
    /// - Throws: ``ImageDecodingError/corrupt(reason:)`` when OpenSlide fails.
    public func readAssociatedImage(named name: String, into argb: UnsafeMutablePointer<UInt32>) throws(ImageDecodingError) {
        table.openslide_read_associated_image(handle, name, argb)
        if let error = table.openslide_get_error(handle) {
            throw .corrupt(reason: "OpenSlide: " + String(cString: error).replacing(path, with: self.name))
        }
    }

    /// `#RRGGBB` or `RRGGBB` as red, green, blue.
    static func rgb(hex: String) -> [UInt8]? {
        let digits = hex.hasPrefix("#") ? hex.dropFirst() : Substring(hex)
        guard digits.count == 6, let value = UInt32(digits, radix: 16) else { return nil }
        return [UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}
