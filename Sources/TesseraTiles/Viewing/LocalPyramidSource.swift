public import FoundationEssentials
import TesseraCodecs
public import TesseraCore
public import TesseraViewing

/// A pyramid on disk as `tessera tile` (or `vips dzsave`) writes it: found from a `.dzi` file,
/// an IIIF `info.json`, or a directory holding exactly one of them.
public struct LocalPyramidSource: TiledImageSource {
    public let layout: any TileLayout
    /// The directory tile paths are relative to.
    public let root: URL
    /// The tiles' file extension, from the descriptor (Deep Zoom) or the tiles found (IIIF).
    public let fileExtension: String

    /// Opens the pyramid at `path`: a `.dzi`, an `info.json`, or a directory holding one or an XYZ or
    /// THTiled pyramid (which have no descriptor). Reads the descriptor or lists the directories; no tile.
    /// - Throws: `TiledSourceError.notAPyramid(_:)` when nothing there is a pyramid,
    ///   `TiledSourceError.invalidDescriptor(_:)` when its descriptor is malformed.
    public init(path: String) throws {
        var url = URL(fileURLWithPath: path)
        var isDirectory = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw TiledSourceError.notAPyramid(path)
        }
        if isDirectory {
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
            if entries.contains("info.json") {
                url.appendPathComponent("info.json")
            } else if let dzi = entries.filter({ $0.hasSuffix(".dzi") }).sorted().first {
                url.appendPathComponent(dzi)
            } else if let service = entries.sorted().first(where: {
                FileManager.default.fileExists(atPath: url.appendingPathComponent("\($0)/info.json").path)
            }) {
                url.appendPathComponent("\(service)/info.json")
            } else if let found = try Self.descriptorless(at: url)
                ?? entries.sorted().lazy
                .compactMap({ try? Self.descriptorless(at: url.appendingPathComponent($0)) }).first
            {
                (layout, root, fileExtension) = found
                return
            } else {
                throw TiledSourceError.notAPyramid(path)
            }
        }
        let described = try PyramidDescriptor.parse(try Data(contentsOf: url), at: url)
        layout = described.layout
        root = described.base
        fileExtension =
            described.layout is IIIFLayout
            ? Self.iiifTileExtension(in: url.deletingLastPathComponent()) : described.fileExtension
    }

    /// IIIF names no format in info.json: it is whatever the tiles were written as (`default.jpg`
    /// unless chosen otherwise).
    private static func iiifTileExtension(in directory: URL) -> String {
        // Tiles lie at {region}/{size}/{rotation}/default.{format}: follow the first entry of each
        // level down rather than listing the whole tree.
        var level = directory.path
        for _ in 0..<4 {
            let entries = ((try? FileManager.default.contentsOfDirectory(atPath: level)) ?? []).sorted()
            if let tile = entries.first(where: { $0.hasPrefix("default.") }) { return FileName(tile).extension }
            guard let next = entries.first(where: { $0 != "info.json" && !$0.hasPrefix(".") }) else { break }
            level += "/" + next
        }
        return "jpg"
    }

    /// Recognises the layouts written without a descriptor, from their directory structure:
    /// THTiledImageView (`NAME/{tileSize}/NAME_{tileSize}_{level}_{x}_{y}.EXT`, whose partial edge
    /// tiles give the exact size) and XYZ (`NAME/{z}/{x}/{y}.EXT`, whose tiles are padded, so the
    /// size is known only to the tile: the padding shows as background).
    static func descriptorless(at directory: URL) throws -> (any TileLayout, URL, String)? {
        let manager = FileManager.default
        let name = directory.lastPathComponent
        let entries = (try? manager.contentsOfDirectory(atPath: directory.path)) ?? []
        let numbers = entries.compactMap(Int.init)
        guard !numbers.isEmpty, numbers.count == entries.count else { return nil }
        // th: a single tile-size directory of NAME_ts_level_x_y files.
        if numbers.count == 1, let tileSize = numbers.first {
            let files = (try? manager.contentsOfDirectory(atPath: directory.appendingPathComponent("\(tileSize)").path)) ?? []
            let parsed = files.compactMap { file -> (level: Int, x: Int, y: Int, ext: String)? in
                let stem = FileName(file).stem, ext = FileName(file).extension
                let parts = stem.split(separator: "_").suffix(4).compactMap { Int($0) }
                guard stem.hasPrefix("\(name)_\(tileSize)_"), parts.count == 4, parts[0] == tileSize else { return nil }
                return (parts[1], parts[2], parts[3], ext)
            }
            if let finest = parsed.map(\.level).max(), let ext = parsed.first?.ext {
                let full = parsed.filter { $0.level == finest }
                let columns = (full.map(\.x).max() ?? 0) + 1, rows = (full.map(\.y).max() ?? 0) + 1
                func edge(_ x: Int, _ y: Int) throws -> PixelSize {
                    let file = directory.appendingPathComponent("\(tileSize)/\(name)_\(tileSize)_\(finest)_\(x)_\(y).\(ext)")
                    return try ImageDecoder().probe(.file(file.path)).size
                }
                let size = PixelSize(
                    width: (columns - 1) * tileSize + (try edge(columns - 1, 0)).width,
                    height: (rows - 1) * tileSize + (try edge(0, rows - 1)).height)
                let layout = THTiledLayout(imageSize: size, name: name, tileSize: tileSize)
                if layout.levelCount == finest { return (layout, directory.deletingLastPathComponent(), ext) }
            }
        }
        // xyz: zoom directories 0…max of column directories of row files.
        guard let maxZoom = numbers.max(), Set(numbers) == Set(0...maxZoom) else { return nil }
        let top = directory.appendingPathComponent("\(maxZoom)")
        let columns = ((try? manager.contentsOfDirectory(atPath: top.path)) ?? []).compactMap(Int.init)
        guard let lastColumn = columns.max() else { return nil }
        let rowFiles = (try? manager.contentsOfDirectory(atPath: top.appendingPathComponent("0").path)) ?? []
        let rows = rowFiles.compactMap { Int(FileName($0).stem) }
        guard let lastRow = rows.max(), let ext = rowFiles.first.map({ FileName($0).extension }) else { return nil }
        let tileSize = try ImageDecoder().probe(.file(directory.appendingPathComponent("0/0/0.\(ext)").path)).size.width
        let layout = XYZLayout(
            imageSize: PixelSize(width: (lastColumn + 1) * tileSize, height: (lastRow + 1) * tileSize),
            name: name, tileSize: tileSize)
        return layout.maxZoom == maxZoom ? (layout, directory.deletingLastPathComponent(), ext) : nil
    }

    public func tile(reduction: Int, column: Int, row: Int) async throws -> PixelBuffer {
        let path = root.appendingPathComponent(
            layout.tilePath(reduction: reduction, column: column, row: row, fileExtension: fileExtension)
        ).path
        return try ImageDecoder().decode(.file(path)).pixels
    }
}

/// Reads the descriptor of a pyramid: a `.dzi` or an IIIF `info.json`.
enum PyramidDescriptor {
    /// The most tiles across or down a pyramid's full-resolution level. A viewer lists a level's
    /// tile spans whole (`TileLayout.columnSpans(reduction:)`), so a descriptor from a server that
    /// claims a side of 60 trillion pixels would take gigabytes before a tile is fetched. Real
    /// pyramids stay far inside: a 10-gigapixel panorama in 254-pixel tiles is 400 tiles across.
    static let maximumTilesPerSide = 1 << 16

    /// Refuses a geometry no real pyramid has and the layouts' arithmetic is not made for: a side
    /// over ``PixelSize/maximumScaledSide`` (2³⁰), a tile larger than that, an overlap wider than a
    /// tile, or more than ``maximumTilesPerSide`` tiles across or down. Both descriptor readers
    /// check here, after their own syntax.
    static func checkGeometry(size: PixelSize, tileSize: Int, overlap: Int) throws(TiledSourceError) {
        let largest = PixelSize.maximumScaledSide
        guard size.width <= largest, size.height <= largest else {
            throw .invalidDescriptor("an image of \(size) pixels is over \(largest) on a side")
        }
        guard tileSize <= largest, overlap <= tileSize else {
            throw .invalidDescriptor("tiles of \(tileSize) pixels with an overlap of \(overlap) are not a tiling")
        }
        // Sides and tile size are at most 2³⁰ here, so the sums cannot overflow.
        let columns = (size.width + tileSize - 1) / tileSize, rows = (size.height + tileSize - 1) / tileSize
        guard columns <= maximumTilesPerSide, rows <= maximumTilesPerSide else {
            throw .invalidDescriptor(
                "\(columns)×\(rows) tiles of \(tileSize) pixels is over \(maximumTilesPerSide) tiles on a side")
        }
    }

    /// The layout `data` (found at `url`) describes, the URL its tile paths are relative to, and
    /// the tile extension it names.
    static func parse(_ data: Data, at url: URL) throws -> (layout: any TileLayout, base: URL, fileExtension: String) {
        if url.pathExtension.lowercased() == "dzi" {
            let descriptor = try DeepZoomDescriptor(xml: String(decoding: data, as: UTF8.self))
            let layout = DeepZoomLayout(
                imageSize: descriptor.size, name: url.deletingPathExtension().lastPathComponent,
                tileSize: descriptor.tileSize, overlap: descriptor.overlap)
            return (layout, url.deletingLastPathComponent(), descriptor.format)
        }
        if url.lastPathComponent == "info.json" {
            let info = try IIIFInfo(json: data)
            let service = url.deletingLastPathComponent()
            return (
                IIIFLayout(imageSize: info.size, name: service.lastPathComponent, tileSize: info.tileSize),
                service.deletingLastPathComponent(), "jpg"
            )
        }
        throw TiledSourceError.notAPyramid(url.absoluteString)
    }
}

/// The attributes of a Deep Zoom `.dzi` descriptor.
struct DeepZoomDescriptor {
    var size: PixelSize
    var tileSize: Int
    var overlap: Int
    var format: String

    init(xml: String) throws {
        func attribute(_ name: String) -> String? {
            guard let range = xml.firstRange(of: "\(name)=\"") else { return nil }
            let rest = xml[range.upperBound...]
            return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
        }
        guard let width = attribute("Width").flatMap(Int.init), let height = attribute("Height").flatMap(Int.init),
            let tileSize = attribute("TileSize").flatMap(Int.init), let overlap = attribute("Overlap").flatMap(Int.init),
            let format = attribute("Format"), width > 0, height > 0, tileSize > 0, overlap >= 0
        else { throw TiledSourceError.invalidDescriptor("a .dzi needs Width, Height, TileSize, Overlap and Format") }
        size = PixelSize(width: width, height: height)
        try PyramidDescriptor.checkGeometry(size: size, tileSize: tileSize, overlap: overlap)
        self.tileSize = tileSize
        self.overlap = overlap
        self.format = format
    }
}

/// The parts of an IIIF Image API 3.0 `info.json` a level-0 viewer needs.
struct IIIFInfo {
    var size: PixelSize
    var tileSize: Int
    var id: String?

    private struct Document: Decodable {
        struct Tiles: Decodable { var width: Int }
        var id: String?
        var width: Int
        var height: Int
        var tiles: [Tiles]
    }

    init(json: Data) throws {
        guard let document = try? JSONDecoder().decode(Document.self, from: json),
            document.width > 0, document.height > 0, let tileWidth = document.tiles.first?.width, tileWidth > 0
        else { throw TiledSourceError.invalidDescriptor("info.json needs width, height and tiles[0].width") }
        size = PixelSize(width: document.width, height: document.height)
        try PyramidDescriptor.checkGeometry(size: size, tileSize: tileWidth, overlap: 0)
        tileSize = tileWidth
        id = document.id
    }
}

/// The parts of a file name in a directory listing (`0_1.jpeg` → stem `0_1`, extension `jpeg`).
private struct FileName {
    /// The last path component.
    let last: Substring
    init(_ path: String) { last = path.split(separator: "/").last ?? Substring(path) }
    private var dot: Substring.Index? { last.lastIndex(of: ".").flatMap { $0 == last.startIndex ? nil : $0 } }
    var stem: String { String(dot.map { last[..<$0] } ?? last) }
    var `extension`: String { dot.map { String(last[last.index(after: $0)...]) } ?? "" }
}
