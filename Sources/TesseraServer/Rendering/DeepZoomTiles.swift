import NIOCore
import TesseraCodecs
import TesseraCore
import TesseraIIIF
import TesseraTiles
import TesseraViewing

/// Deep Zoom's answers: the descriptor, and tiles as `vips dzsave` numbers them (level 0 is 1×1,
/// each tile with its overlap), from the built Deep Zoom pyramid of a derived source, else from
/// the source's levels, encoded as the builder encodes its tiles.
final class DeepZoomTiles: Sendable {
    private let configuration: ServerConfiguration
    private let planner: SourcePlanner
    private let answers: ResponseAnswers
    private let decodedLevels: DecodedLevels
    private let pyramids: any PyramidStoring
    private let builds: BackgroundBuilds
    private let renderer: PlanRenderer
    private let executor: WorkExecutor

    init(
        configuration: ServerConfiguration, planner: SourcePlanner, answers: ResponseAnswers, decodedLevels: DecodedLevels,
        pyramids: any PyramidStoring, builds: BackgroundBuilds, renderer: PlanRenderer, executor: WorkExecutor
    ) {
        self.configuration = configuration
        self.planner = planner
        self.answers = answers
        self.decodedLevels = decodedLevels
        self.pyramids = pyramids
        self.builds = builds
        self.renderer = renderer
        self.executor = executor
    }

    /// The `.dzi` descriptor: the one the builder writes, made from the size alone so a viewer can
    /// start before the pyramid exists.
    func descriptor(for source: ResolvedSource) async throws -> ByteBuffer {
        let descriptor = Self.layout(of: try await planner.plan(for: source)).descriptors(fileExtension: "jpeg")[0].contents
        return ByteBuffer(bytes: descriptor)
    }

    /// The Deep Zoom tiling of a source: a source read in place with square stored tiles (a
    /// slide, a pyramidal TIFF) in those tiles with no overlap, so that a tile at a stored level is
    /// a stored tile, passed through; any other in `vips dzsave`'s 254-px tiles with a 1-px
    /// overlap, as its built pyramid has them. Levels are the image's either way.
    static func layout(of plan: SourcePlan) -> DeepZoomLayout {
        let size = plan.properties.displaySize
        guard plan.mode == .inPlace, plan.properties.orientation == .up, let stored = plan.source.nativeLevels.first?.storedTileSize,
            stored.width == stored.height
        else { return DeepZoomLayout(imageSize: size, name: "dzi") }
        return DeepZoomLayout(imageSize: size, name: "dzi", tileSize: stored.width, overlap: 0)
    }

    /// Tile `(column, row)` of Deep Zoom level `level`; for a source turned by its orientation tag,
    /// rendered like an IIIF region of the upright image.
    func tile(for source: ResolvedSource, level: Int, column: Int, row: Int) async throws -> ByteBuffer {
        try await answers.answer("dzi|\(level)/\(column)_\(row)", source: source) {
            let plan = try await self.planner.plan(for: source)
            let properties = plan.properties
            let layout = Self.layout(of: plan)
            let reduction = layout.maxLevel - level
            guard (0...layout.maxLevel).contains(level), column >= 0, row >= 0,
                case let columns = layout.columnSpans(reduction: reduction), column < columns.count,
                case let rows = layout.rowSpans(reduction: reduction), row < rows.count
            else { throw ServerError(.notFound, "no Deep Zoom tile \(level)/\(column)_\(row)") }
            guard properties.orientation == .up else {
                // The tile's pixels (overlap included) at full resolution, scaled to the tile.
                let request = try Self.request(plan, reduction: reduction, column: columns[column], row: rows[row])
                return try await self.renderer.render(request, of: source, plan: plan)
            }
            // A source read in place is read at each level from its own levels: never built; a
            // stored tile is its own answer.
            let inPlace = plan.mode == .inPlace
            if inPlace,
                let stored = try await self.renderer.inPlace.storedBytes(
                    answering: Self.request(plan, reduction: reduction, column: columns[column], row: rows[row]), plan: plan)
            {
                return stored
            }
            if !inPlace, let pyramid = self.pyramids.builtPyramid(.deepZoom, for: source, imageSize: properties.size) {
                return try await pyramid.body(reduction: reduction, column: column, row: row)
            }
            // Until the pyramid exists, the tile (overlap included) from the source's levels, encoded
            // as the builder encodes it: the same bytes the pyramid will hold.
            let levels = plan.levels, encoder = self.renderer.derived
            let rect = PixelRect(x: columns[column].lowerBound, y: rows[row].lowerBound, width: columns[column].count, height: rows[row].count)
            let kept = self.configuration.colorManagement.profile(of: properties)
            if levels.levelSize(reduction: reduction).area <= self.configuration.wholeLevelPixelLimit {
                let cut = try await self.decodedLevels.whole(source, levels: levels, reduction: reduction, small: false, cut: rect)
                return try await self.executor.run { _ in ByteBuffer(bytes: try encoder.encodedTile(cut, profile: kept)) }
            }
            if !inPlace { self.builds.start(.deepZoom, source: source, imageSize: properties.size) }
            return try await self.executor.run { context in
                let pixels = try levels.pixels(of: rect, reduction: reduction, context: context)
                return ByteBuffer(bytes: try encoder.encodedTile(pixels, profile: kept))
            }
        }
    }

    /// The IIIF request of the pixels of the tile spanning `column` × `row` (level pixels, overlap
    /// included) at `reduction`: its full-resolution region, scaled to the tile.
    private static func request(_ plan: SourcePlan, reduction: Int, column: Range<Int>, row: Range<Int>) throws -> ResolvedIIIFRequest {
        let size = plan.properties.displaySize, step = 1 << reduction
        let x = column.lowerBound * step, y = row.lowerBound * step
        let region = PixelRect(x: x, y: y, width: min(size.width, column.upperBound * step) - x, height: min(size.height, row.upperBound * step) - y)
        return try IIIFImageRequest(region: .pixels(region), size: .init(.exact(width: column.count, height: row.count)))
            .resolved(imageSize: size, limits: IIIFLimits(maxWidth: nil, maxHeight: nil, maxArea: nil))
    }
}
