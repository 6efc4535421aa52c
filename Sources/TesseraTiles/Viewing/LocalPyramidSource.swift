import Foundation
import TesseraCodecs
import TesseraCore

/// A pyramid on disk as `tessera tile` (or `vips dzsave`) writes it: found from a `.dzi` file,
/// an IIIF `info.json`, or a directory holding exactly one of them.
public struct LocalPyramidSource: TiledImageSource {
    public let layout: any TileLayout
    /// The directory tile paths are relative to.
    public let root: URL
    public let fileExtension: String

    public init(path: String) throws {
        var url = URL(fileURLWithPath: path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw TiledSourceError.notAPyramid(path)
        }
        if isDirectory.boolValue {
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
            if entries.contains("info.json") {
                url.appendPathComponent("info.json")
            } else if let dzi = entries.filter({ $0.hasSuffix(".dzi") }).sorted().first {
                url.appendPathComponent(dzi)
            } else {
                throw TiledSourceError.notAPyramid(path)
            }
        }
        let data = try Data(contentsOf: url)
        if url.pathExtension.lowercased() == "dzi" {
            let descriptor = try DeepZoomDescriptor(xml: String(decoding: data, as: UTF8.self))
            let name = url.deletingPathExtension().lastPathComponent
            layout = DeepZoomLayout(imageSize: descriptor.size, name: name, tileSize: descriptor.tileSize, overlap: descriptor.overlap)
            root = url.deletingLastPathComponent()
            fileExtension = descriptor.format
        } else if url.lastPathComponent == "info.json" {
            let info = try IIIFInfo(json: data)
            let directory = url.deletingLastPathComponent()
            layout = IIIFLayout(imageSize: info.size, name: directory.lastPathComponent, tileSize: info.tileSize)
            root = directory.deletingLastPathComponent()
            fileExtension = "jpg"
        } else {
            throw TiledSourceError.notAPyramid(path)
        }
    }

    public func tile(reduction: Int, column: Int, row: Int) async throws -> PixelBuffer {
        let path = root.appendingPathComponent(
            layout.tilePath(reduction: reduction, column: column, row: row, fileExtension: fileExtension)).path
        return try ImageDecoder().decode(.file(path)).pixels
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
            guard let range = xml.range(of: "\(name)=\"") else { return nil }
            let rest = xml[range.upperBound...]
            return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
        }
        guard let width = attribute("Width").flatMap(Int.init), let height = attribute("Height").flatMap(Int.init),
            let tileSize = attribute("TileSize").flatMap(Int.init), let overlap = attribute("Overlap").flatMap(Int.init),
            let format = attribute("Format"), width > 0, height > 0, tileSize > 0, overlap >= 0
        else { throw TiledSourceError.invalidDescriptor("a .dzi needs Width, Height, TileSize, Overlap and Format") }
        size = PixelSize(width: width, height: height)
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

    init(json: Data) throws {
        guard let object = try? JSONSerialization.jsonObject(with: json) as? [String: Any],
            let width = object["width"] as? Int, let height = object["height"] as? Int, width > 0, height > 0,
            let tiles = (object["tiles"] as? [[String: Any]])?.first, let tileWidth = tiles["width"] as? Int, tileWidth > 0
        else { throw TiledSourceError.invalidDescriptor("info.json needs width, height and tiles[0].width") }
        size = PixelSize(width: width, height: height)
        tileSize = tileWidth
        id = object["id"] as? String
    }
}
