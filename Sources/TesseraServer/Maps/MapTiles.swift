import NIOCore
import TesseraCodecs
import TesseraCore
import TesseraIIIF
import TesseraTiles

/// Web-map answers for georeferenced sources (`MapSource`): tiles of the WebMercatorQuad grid,
/// reprojected from the source's own system, encoded and kept like every other answer; TileJSON
/// and WMTS capabilities. A source's map (its bounds and zooms, computed through PROJ) is made
/// once and kept.
final class MapTiles: Sendable {
    private let planner: SourcePlanner
    private let answers: ResponseAnswers
    private let executor: WorkExecutor
    private let jpegQuality: Int
    private let metrics: ServerMetrics
    private let decodedLevels: DecodedLevels
    private let maps = Locked(LRUCache<String, MapSource>(costLimit: 256))

    init(
        planner: SourcePlanner, answers: ResponseAnswers, decodedLevels: DecodedLevels, executor: WorkExecutor, jpegQuality: Int,
        metrics: ServerMetrics
    ) {
        self.metrics = metrics
        self.decodedLevels = decodedLevels
        self.planner = planner
        self.answers = answers
        self.executor = executor
        self.jpegQuality = jpegQuality
    }

    /// The formats a tile is encoded in, by the extension asked.
    enum Format: String, CaseIterable {
        case png, jpg, webp

        var mediaType: String {
            switch self {
            case .png: "image/png"
            case .jpg: "image/jpeg"
            case .webp: "image/webp"
            }
        }
    }

    /// The map of `source`.
    ///
    /// - Throws: ``ServerError`` (404) for a source that is no map: none of its tags georeference
    ///   it, or they do in a way no map can be made of (absurd GeoKeys, a degenerate transform, a
    ///   CRS PROJ cannot build), said in one line; its other routes still serve it as an image.
    func map(for source: ResolvedSource) async throws -> MapSource {
        if let known = maps.withLock({ $0.value(for: source.key) }) { return known }
        let plan = try await planner.plan(for: source)
        let map = try await executor.run { _ in
            do {
                guard let georeference = try plan.source.georeference() else {
                    throw ServerError(.notFound, "\(source.encodedIdentifier) is not a map: it has no georeference")
                }
                // Stored tiles through the decoded-tile cache: neighbouring map tiles warped from the
                // same source tile decode it once.
                let decodedLevels = self.decodedLevels
                let cached = TileCachingSource(plan.source) { level, column, row, decode in
                    try decodedLevels.tile(key: "\(source.key)/native-tile/\(level)/\(column)_\(row)", decode: decode)
                }
                return try MapSource(levels: cached.map { RegionLevels($0) } ?? plan.levels, georeference: georeference)
            } catch let error as ImageDecodingError where [.corrupt, .truncated, .unsupported, .badInput].contains(error.category) {
                throw ServerError(.notFound, "\(source.encodedIdentifier) is not a map: \(error)")
            }
        }
        maps.withLock { _ = $0.insert(map, for: source.key, cost: 1) }
        return map
    }

    /// The canonical request of a tile: what its answer is kept and its entity tag made under.
    static func key(_ tile: WebMercatorTile, side: Int, resampling: MapResampling, format: Format) -> String {
        "map|\(tile.zoom)/\(tile.x)/\(tile.y)@\(side)|\(resampling.rawValue).\(format.rawValue)"
    }

    /// `tile` of `source`, `side` pixels square, in `format`.
    ///
    /// - Throws: ``ServerError`` (404) for a tile beyond the map's bounds.
    func tile(for source: ResolvedSource, _ tile: WebMercatorTile, side: Int, resampling: MapResampling, format: Format) async throws
        -> ByteBuffer
    {
        try await answers.answer(Self.key(tile, side: side, resampling: resampling, format: format), source: source) {
            let map = try await self.map(for: source)
            guard map.covers(tile) else { throw ServerError(.notFound, "tile \(tile.zoom)/\(tile.x)/\(tile.y) is outside the map") }
            let quality = self.jpegQuality, metrics = self.metrics
            return try await self.executor.run { context in
                let encoding: EncodingFormat =
                    switch format {
                    // zlib level 2: a noisy 256² RGBA tile in a third of level 6's time for 9 % more
                    // bytes (34 → 11 ms, 159 → 174 KB, measured); a map asks for many tiles at once.
                    case .png: .png(compressionLevel: 2)
                    case .jpg: .jpeg(quality: quality)
                    case .webp: .webp(quality: quality)
                    }
                let (bytes, passedThrough) = try map.encodedTile(tile, side: side, resampling: resampling, encoding: encoding, context: context)
                // A stored tile asked as it is stored: its bytes, no pixel decoded.
                if passedThrough { metrics.record(.storedTilePassThrough) }
                return ByteBuffer(bytes: bytes)
            }
        }
    }
}
