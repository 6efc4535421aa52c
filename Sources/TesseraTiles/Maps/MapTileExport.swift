import Foundation
public import TesseraCodecs
public import TesseraCore

/// A map written as files (`tessera tile --layout xyz` of a GeoTIFF): every WebMercatorQuad tile of
/// its zooms that shows it, `NAME/{z}/{x}/{y}.EXT`, the same bytes `tessera serve` answers for
/// them (stored JPEG tiles copied as they are), and `NAME/tilejson.json` with a template relative
/// to it.
public enum MapTileExport {
    /// The tiles of `map` inside its bounds at `zoom`, west to east, north to south.
    public static func tiles(of map: MapSource, zoom: Int) -> [WebMercatorTile] {
        let side = WebMercatorTile.side(zoom: zoom), count = 1 << zoom, half = WebMercatorTile.worldWidth / 2
        func index(_ metres: Double) -> Int { min(count - 1, max(0, Int((metres / side).rounded(.down)))) }
        // A hair inside the bounds: an edge on a tile boundary (a map on the grid) is not in the next tile.
        let inset = side * 1e-9
        let (x0, x1) = (index(map.bounds.mercatorWest + half + inset), index(map.bounds.mercatorEast + half - inset))
        let (y0, y1) = (index(half - map.bounds.mercatorNorth + inset), index(half - map.bounds.mercatorSouth - inset))
        return (y0...y1).flatMap { y in (x0...x1).compactMap { x in WebMercatorTile(zoom: zoom, x: x, y: y) } }
    }

    /// Writes `map`'s tiles into `directory`/`name`, `jobs` at a time, and returns the summary.
    ///
    /// - Throws: the source's, the encoder's and the file system's errors; `CancellationError`.
    public static func write(
        _ map: MapSource, to directory: String, name: String, side: Int = 256, resampling: MapResampling = .nearest,
        encoding: EncodingFormat, jobs: Int, progress: WorkProgress? = nil
    ) async throws -> PyramidSummary {
        let root = URL(fileURLWithPath: directory).appendingPathComponent(name)
        let extensionName = encoding.fileExtension
        let all = map.zooms.flatMap { tiles(of: map, zoom: $0) }
        let executor = WorkExecutor(threadCount: max(1, jobs))
        let written = Locked((tiles: 0, bytes: 0))
        progress?.totalUnitCount = all.count
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, tile) in all.enumerated() {
                if index >= jobs * 2 { try await group.next() }
                group.addTask {
                    let bytes = try await executor.run { context in
                        try map.encodedTile(tile, side: side, resampling: resampling, encoding: encoding, context: context).bytes
                    }
                    let file = root.appendingPathComponent("\(tile.zoom)/\(tile.x)/\(tile.y).\(extensionName)")
                    try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                    try Data(bytes).write(to: file)
                    written.withLock { $0 = ($0.tiles + 1, $0.bytes + bytes.count) }
                    progress?.advance()
                }
            }
            try await group.waitForAll()
        }
        let document = MapDocuments.tileJSON(map, name: name, tilesURL: "{z}/{x}/{y}.\(extensionName)")
        try document.write(to: root.appendingPathComponent("tilejson.json"))
        let (count, bytes) = written.withLock { $0 }
        return PyramidSummary(
            layout: "xyz", imageSize: map.levels.properties.size, levels: map.zooms.count, tiles: count, bytes: bytes, peakHeldRowBytes: 0)
    }
}
