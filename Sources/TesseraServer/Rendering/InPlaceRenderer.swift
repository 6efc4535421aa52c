import NIOCore
import TesseraCodecs
import TesseraCore
import TesseraIIIF
import TesseraTiles

/// Renders requests of sources read in place (``SourcePlan/Mode/inPlace``: a pyramidal TIFF, a
/// JPEG 2000, a slide, any registered kind), every level where the source keeps it or made from
/// the next finer one, with nothing derived from the file:
///
/// - a level the source stores in tiles is composed from its tiles, each decoded once and kept in
///   the decoded cache (viewers ask for the same tiles again);
/// - a tile of the advertised tiling on any other level is read as that area and kept;
/// - any other region on a level small enough to hold (``ServerConfiguration/wholeLevelPixelLimit``)
///   makes that level whole, once for every request that needs it and answered band by band as it
///   is decoded, then kept: later regions and tiles on it are cut, not read again;
/// - on a finer level it is one read of its own area, as iipsrv decodes it: composing it from
///   whole tiles would decode up to four times its pixels.
///
/// Before all these, one whole stored tile asked for as it is stored (a slide's JPEG tile, at its
/// size, in JPEG, upright, colour as stored) is answered with its stored bytes: no decode, no
/// encode (``RegionSource/storedTile(level:column:row:)``).
struct InPlaceRenderer: Sendable {
    let configuration: ServerConfiguration
    let decodedLevels: DecodedLevels
    let executor: WorkExecutor
    let metrics: ServerMetrics

    /// The pixels `request` asks for of `source`, encoded, read as its `plan` says.
    /// The stored tile that is `request`'s answer as it is (``SourcePlan/storedTile(answering:)``),
    /// read on a worker, when the source gives its bytes; nil otherwise.
    func storedBytes(answering request: ResolvedIIIFRequest, plan: SourcePlan) async throws -> ByteBuffer? {
        guard let tile = plan.storedTile(answering: request),
            let stored = try await executor.run({ _ in try plan.source.storedTile(level: tile.level, column: tile.column, row: tile.row) }),
            stored.format == .jpeg
        else { return nil }
        metrics.record(.storedTilePassThrough)
        return ByteBuffer(bytes: stored.bytes)
    }

    func render(_ request: ResolvedIIIFRequest, of source: ResolvedSource, plan: SourcePlan) async throws -> ByteBuffer {
        let levels = plan.levels, properties = plan.properties, orientation = properties.orientation
        let kept = configuration.colorManagement.profile(of: properties), quality = configuration.jpegQuality
        // A tile of the advertised tiling is its level's pixels, whatever level the size alone would
        // pick (`0,0,16000,12000/250,` is level 6's one tile; 188/12000 alone picks level 5, 4× the read).
        let reduction = plan.reduction(region: request.region, scaledSize: request.scaledSize)
        let levelSize = levels.levelSize(reduction: reduction)
        let storedRegion = orientation.storedRect(ofDisplayed: request.region, storedSize: properties.size)
        let rect = RegionRenderer.levelRect(of: storedRegion, reduction: reduction, levelSize: levelSize)
        let (native, halvings) = levels.derivation(of: reduction)
        let storedTiles = halvings == 0 ? plan.source.nativeLevels[native].storedTileSize : nil
        let isTile = rect.tilePosition(tileSize: plan.tileSize, imageSize: levelSize) != nil
        if let stored = try await storedBytes(answering: request, plan: plan) { return stored }
        @Sendable func finished(_ pixels: PixelBuffer) throws -> ByteBuffer {
            ByteBuffer(bytes: try RegionRenderer.render(orientation.apply(to: pixels), profile: kept, request: request, jpegQuality: quality))
        }
        if storedTiles == nil, levelSize.area <= configuration.wholeLevelPixelLimit {
            var cut = decodedLevels.held(source, reduction: reduction, cut: rect)
            if cut == nil, !isTile { cut = try await decodedLevels.whole(source, levels: levels, reduction: reduction, small: false, cut: rect) }
            if let cut { return try await executor.run { _ in try finished(cut) } }
        }
        let metrics = self.metrics
        guard let tileSize = storedTiles ?? (isTile ? plan.tileSize : nil) else {
            metrics.record(.sourceRead)
            return try await executor.run { context in try finished(try levels.pixels(of: rect, reduction: reduction, context: context)) }
        }
        let decodedLevels = self.decodedLevels
        return try await executor.run { context in
            let composed = try TileComposer.regionPixels(
                rect, tileSize: tileSize, format: plan.source.pixelFormat, scaledSize: orientation == .up ? request.scaledSize : nil
            ) { column, row in
                try context.checkCancellation()
                return try decodedLevels.tile(key: "\(source.key)/tile/\(reduction)/\(column)_\(row)") {
                    metrics.record(.sourceRead)
                    if storedTiles != nil { return try plan.source.tile(level: native, column: column, row: row, context: context) }
                    let tile = PixelRect(x: column * tileSize.width, y: row * tileSize.height, width: tileSize.width, height: tileSize.height)
                    return try levels.pixels(of: tile, reduction: reduction, context: context)
                }
            }
            return try finished(composed)
        }
    }
}
