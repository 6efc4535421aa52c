public import TesseraCodecs
import TesseraCore

/// Whole-slide images of the vendors Tessera does not read natively, through OpenSlide
/// (`OpenSlideFile`): Hamamatsu, MIRAX, Leica, Ventana, Philips, Sakura, Trestle, and generic
/// tiled TIFF. Listed twice among the kinds: the vendor formats before the pyramidal TIFF kinds
/// (which would take a vendor's TIFF for a plain pyramid), generic TIFF after them (a pyramid of
/// whole-factor steps down to 2×2 tiles is read natively, faster; OpenSlide takes the tiled TIFFs
/// refused there whose steps are not all halvings: `isUnhalvedPyramid(_:)`).
/// No pass-through (OpenSlide gives no stored bytes); the slide's background fills where it has
/// no data; the scale is the vendor's.
public struct OpenSlideKind: RegionSourceKind {
    /// Which of OpenSlide's formats this kind takes.
    public enum Vendors: Sendable {
        /// Every vendor's format but generic tiled TIFF (and Aperio, read natively).
        case vendorFormats
        /// Generic tiled TIFF alone.
        case genericTIFF
    }

    public let vendors: Vendors
    public var name: String { "openslide" }

    public init(_ vendors: Vendors) { self.vendors = vendors }

    /// OpenSlide is asked (and loaded) only for a TIFF or a file the codecs do not read (MIRAX's
    /// `.mrxs`, Hamamatsu's `.vms`, Sakura's SQLite): never for the JPEGs and PNGs most servers hold.
    public func open(_ input: RegionSourceInput, header: () throws -> ImageProperties) throws -> (any RegionSource)? {
        guard let path = input.input.filePath, input.options.pageIndex == 0 else { return nil }
        if let format = try? header().format, format != .tiff { return nil }
        guard let vendor = OpenSlideFile.vendor(ofFileAt: path), vendor != "aperio", (vendor == "generic-tiff") == (vendors == .genericTIFF)
        else { return nil }
        let file = try OpenSlideFile(path: path)
        guard vendors == .vendorFormats || Self.isUnhalvedPyramid(file.levels) else { return nil }
        return OpenSlideSource(file)
    }

    /// Whether a generic TIFF's levels, refused by the TIFF pyramid kind, are what OpenSlide reads
    /// in place: some step is not a power of two (steps that are not whole, or a coarsest level
    /// larger than 2×2 tiles; a halving pyramid that stops early gets a built pyramid), and they go
    /// down to a level of at most ``coarsestSide`` px (else a client's overview would read a large
    /// level whole; one level alone is no pyramid at all).
    static func isUnhalvedPyramid(_ levels: [OpenSlideFile.Level]) -> Bool {
        guard levels.count > 1, let coarsest = levels.last, max(coarsest.size.width, coarsest.size.height) <= coarsestSide else { return false }
        return levels.contains { level in
            let step = Int(level.downsample.rounded())
            return step & (step - 1) != 0
        }
    }

    /// The largest coarsest level a generic TIFF read through OpenSlide may have, in pixels.
    static let coarsestSide = 2048
}

/// An OpenSlide slide as a ``RegionSource``: its levels whose downsample is a whole number
/// (within 0.1 %: 4.0002 is 4; a level at 4.016 is left to ``RegionLevels``, made from the finer
/// one, so every level pixel lies where the full-resolution grid puts it), read in bands of rows
/// and composited on the slide's background.
struct OpenSlideSource: RegionSource {
    let properties: ImageProperties
    let nativeLevels: [NativeLevel]
    var pixelFormat: PixelFormat { .rgb8 }
    var preferredTileSize: PixelSize? { nil }
    var holdsWholeImage: Bool { false }
    var micronsPerPixel: Double? { file.micronsPerPixel }
    var vendor: String? { file.vendor }
    var associatedImages: [AssociatedImage] { file.associatedImages.map { AssociatedImage(name: $0.name, size: $0.size) } }
    private let file: OpenSlideFile
    /// OpenSlide's level for each native level.
    private let slideLevels: [Int]

    init(_ file: OpenSlideFile) {
        self.file = file
        properties = file.properties
        var levels: [NativeLevel] = [], indices: [Int] = []
        for (index, level) in file.levels.enumerated() {
            let downsample = Int(level.downsample.rounded())
            guard downsample >= 1, abs(level.downsample - Double(downsample)) <= 0.001 * level.downsample,
                downsample > (levels.last?.downsample ?? 0)
            else { continue }
            levels.append(NativeLevel(size: level.size, downsample: downsample))
            indices.append(index)
        }
        nativeLevels = levels
        slideLevels = indices
    }

    /// OpenSlide decodes the stored tiles a region touches; their size is not known here, so the
    /// cost is the region's own pixels.
    func cost(of rect: PixelRect, level: Int) -> RegionCost {
        RegionCost(decodedPixelCount: rect.width * rect.height, rowsPassedOver: 0)
    }

    func forEachRow(in rect: PixelRect, level: Int, context: WorkContext, _ body: (UnsafeBufferPointer<UInt8>) -> Void) throws {
        let size = nativeLevels[level].size, downsample = nativeLevels[level].downsample
        let rect = rect.intersection(PixelRect(x: 0, y: 0, width: size.width, height: size.height))
        guard rect.width > 0, rect.height > 0 else { return }
        // Bands of at most a megapixel: memory is the region's width, not its area.
        let bandRows = max(1, min(rect.height, (1 << 20) / rect.width))
        let argb = UnsafeMutablePointer<UInt32>.allocate(capacity: bandRows * rect.width)
        defer { argb.deallocate() }
        var row = [UInt8](repeating: 0, count: rect.width * 3)
        for bandTop in stride(from: rect.y, to: (rect.y + rect.height), by: bandRows) {
            try context.checkCancellation()
            let rows = min(bandRows, (rect.y + rect.height) - bandTop)
            try file.readRegion(
                level: slideLevels[level], origin: (rect.x * downsample, bandTop * downsample),
                size: PixelSize(width: rect.width, height: rows), into: argb)
            for y in 0..<rows {
                row.withUnsafeMutableBufferPointer { Self.composite(argb + y * rect.width, count: rect.width, on: file.background, into: $0) }
                row.withUnsafeBufferPointer(body)
            }
        }
    }

    /// Associated images are decoded whole by OpenSlide (a label, a macro photo: a few megapixels
    /// at most; one over 64 Mi pixels is refused), composited on white.
    func associatedImage(named name: String) throws -> (any RegionSource)? {
        guard let image = file.associatedImages.first(where: { $0.name == name }) else { return nil }
        let count = image.size.width * image.size.height
        guard count <= Self.associatedPixelLimit else { throw ImageDecodingError.tooLarge(pixels: count, limit: Self.associatedPixelLimit) }
        let argb = UnsafeMutablePointer<UInt32>.allocate(capacity: count)
        defer { argb.deallocate() }
        try file.readAssociatedImage(named: name, into: argb)
        var pixels = PixelBuffer(width: image.size.width, height: image.size.height, format: .rgb8)
        pixels.bytes.withUnsafeMutableBufferPointer { Self.composite(argb, count: count, on: [255, 255, 255], into: $0) }
        return HeldRegionSource(pixels, format: .slide)
    }

    /// The most pixels an associated image OpenSlide decodes whole may have.
    static let associatedPixelLimit = 64 << 20

    /// `count` premultiplied ARGB words as RGB on `background`: each colour plus the background
    /// where the pixel lets it through.
    private static func composite(_ argb: UnsafePointer<UInt32>, count: Int, on background: [UInt8], into rgb: UnsafeMutableBufferPointer<UInt8>) {
        let background = background.map(UInt32.init)
        for x in 0..<count {
            let pixel = argb[x], clear = 255 - (pixel >> 24)
            for channel in 0..<3 {
                let stored = (pixel >> UInt32(16 - 8 * channel)) & 0xFF
                rgb[x * 3 + channel] = UInt8(min(255, stored + (background[channel] * clear + 127) / 255))
            }
        }
    }
}
