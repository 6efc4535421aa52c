public import TesseraCodecs
import TesseraCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// DICOM whole-slide images (Supplement 145), read natively: a slide is a series, one instance
/// per level, kept as files in one folder. Any instance of the series opens the whole slide (its
/// volume instances are found among the files beside it), so a client may name the level-0 file
/// or any other; label, overview and thumbnail instances are not levels. Frames are read as
/// stored (`DICOMInstance`): JPEG baseline, JPEG 2000, or uncompressed; `TILED_FULL` or
/// `TILED_SPARSE`, whose gaps are the slide's background (its Recommended Absent Pixel CIELab
/// Value, else white). Aligned JPEG frames are given as stored
/// (``RegionSource/storedTile(level:column:row:)``). The scale is Pixel Spacing.
public struct DICOMSlideKind: RegionSourceKind {
    public var name: String { "dicom" }

    public init() {}

    public func open(_ input: RegionSourceInput, header: () throws -> ImageProperties) throws -> (any RegionSource)? {
        // The series is found among the files beside this one, so the source must be a file.
        guard let path = input.input.filePath, input.options.pageIndex == 0 else { return nil }
        let opened: DICOMInstance
        do {
            guard let instance = try DICOMInstance.read(input.input, options: input.options) else { return nil }
            opened = instance
        } catch .unknownFormat {
            return nil  // no DICOM file: another kind's, or the codecs'
        }
        return try DICOMSlideSource(instances: [opened] + Self.series(opened.seriesUID, besides: path, options: input.options))
    }

    /// The other instances of `series` in the folder of `path` (at most ``siblingLimit`` files
    /// looked at: 132 bytes of one that is no DICOM file, a DICOM file's header only up to its
    /// series UID when it is another's). A sibling that cannot be read is left out, as a file of
    /// another series is.
    static func series(_ series: String, besides path: String, options: DecodeOptions) -> [DICOMInstance] {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[..<$0]) } ?? "."
        let own = slash.map { String(path[path.index(after: $0)...]) } ?? path
        guard let directory = opendir(folder.isEmpty ? "/" : folder) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while names.count < siblingLimit, let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard !name.hasPrefix("."), name != own else { continue }
            names.append(name)
        }
        return names.sorted().compactMap { name in
            try? DICOMInstance.read(.file(folder + "/" + name), options: options, series: series)
        }
    }

    /// The most files beside an instance looked at: a slide has a handful of instances.
    static let siblingLimit = 256
}

/// A DICOM series' volume instances as a slide's levels (``DICOMSlideKind``).
struct DICOMSlideSource: TiledRegionSource {
    let properties: ImageProperties
    let nativeLevels: [NativeLevel]
    let pixelFormat: PixelFormat
    let micronsPerPixel: Double?
    let associatedImages: [AssociatedImage]
    var holdsWholeImage: Bool { false }
    private let levels: [DICOMInstance]
    private let associatedInstances: [String: DICOMInstance]
    /// One pixel of the slide's background, in ``pixelFormat``.
    private let background: [UInt8]

    /// The slide of `instances` (one series): its volume instances, largest first, each smaller
    /// than the one before (a second instance of a size, another focal plane or optical path, is
    /// not a level).
    ///
    /// - Throws: ``ImageDecodingError/unsupported(reason:)`` for a series with no volume instance.
    init(instances: [DICOMInstance]) throws {
        var levels: [DICOMInstance] = []
        for instance in instances.filter({ $0.flavor == .volume }).sorted(by: { $0.size.width > $1.size.width }) {
            guard levels.count < TIFFPyramid.maximumLevelCount else { break }
            if let last = levels.last, instance.size.width >= last.size.width || instance.size.height > last.size.height { continue }
            levels.append(instance)
        }
        guard !levels.isEmpty else {
            throw ImageDecodingError.unsupported(reason: "a DICOM series without a volume image (only a label, overview or thumbnail)")
        }
        // OpenSlide's names: an overview is the slide's macro photo.
        let names: [DICOMInstance.Flavor: String] = [.label: "label", .overview: "macro", .thumbnail: "thumbnail"]
        var associated: [String: DICOMInstance] = [:]
        for instance in instances {
            guard let name = names[instance.flavor], associated[name] == nil else { continue }
            associated[name] = instance
        }
        self.init(levels: levels, associated: associated)
    }

    /// The slide whose levels are `levels` (largest first) and whose associated images are `associated`.
    private init(levels: [DICOMInstance], associated: [String: DICOMInstance]) {
        let first = levels[0]
        self.levels = levels
        associatedInstances = associated
        associatedImages = associated.map { AssociatedImage(name: $0.key, size: $0.value.size) }.sorted { $0.name < $1.name }
        properties = first.properties
        pixelFormat = first.pixelFormat
        micronsPerPixel = first.micronsPerPixel
        nativeLevels = levels.map { level in
            NativeLevel(size: level.size, downsample: NativeLevel.downsample(of: level.size, from: first.size), storedTileSize: level.tileSize)
        }
        let color = first.background ?? [255, 255, 255]
        let (red, green, blue): (Int, Int, Int) = (Int(color[0]), Int(color[1]), Int(color[2]))
        let luma: Int = (red * 299 + green * 587 + blue * 114) / 1000
        background = first.pixelFormat == .gray8 ? [UInt8(luma)] : color
    }

    func tile(level: Int, column: Int, row: Int, context: WorkContext) throws -> PixelBuffer {
        try context.checkCancellation()
        let instance = levels[level]
        if let pixels = try instance.tile(column: column, row: row) {
            return pixels.format == pixelFormat ? pixels : pixels.converted(to: pixelFormat)
        }
        // No frame here (a sparse level's gap): the slide's background, never black.
        let size = nativeLevels[level].size, tileSize = instance.tileSize
        let width = min(tileSize.width, size.width - column * tileSize.width), height = min(tileSize.height, size.height - row * tileSize.height)
        guard width > 0, height > 0 else { throw ImageDecodingError.unsupported(reason: "level \(level) of the slide has no tile \(column),\(row)") }
        let pixelCount = width * height
        var bytes = [UInt8](repeating: 0, count: pixelCount * background.count)
        for start in stride(from: 0, to: bytes.count, by: background.count) {
            bytes.replaceSubrange(start..<start + background.count, with: background)
        }
        return PixelBuffer(width: width, height: height, format: pixelFormat, bytes: bytes)
    }

    var listedFilePath: String? { levels[0].filePath }

    /// An associated image is its instance, read as a slide of one level (its frames tiles).
    func associatedImage(named name: String) throws -> (any RegionSource)? {
        associatedInstances[name].map { DICOMSlideSource(levels: [$0], associated: [:]) }
    }

    func storedTile(level: Int, column: Int, row: Int) throws -> StoredTile? {
        try levels[level].storedTile(column: column, row: row).map { StoredTile(bytes: $0, format: .jpeg) }
    }
}
