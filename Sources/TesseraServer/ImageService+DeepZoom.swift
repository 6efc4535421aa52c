import NIOCore
import TesseraCodecs
import TesseraCore
import TesseraIIIF
import TesseraTiles

// Deep Zoom: the descriptor, and tiles as `vips dzsave` numbers them.
extension ImageService {

    /// The `.dzi` descriptor: the one the builder writes, made from the size alone so a viewer can
    /// start before the pyramid exists.
    func deepZoomDescriptor(for source: ResolvedSource) async throws -> ByteBuffer {
        let size = try await planner.properties(of: source).displaySize
        let descriptor = DeepZoomLayout(imageSize: size, name: "dzi").descriptors(fileExtension: "jpeg")[0].contents
        return ByteBuffer(bytes: descriptor)
    }

    /// A Deep Zoom tile as `vips dzsave` numbers them (level 0 is 1×1), from the built pyramid; for
    /// a source turned by its orientation tag, rendered like an IIIF region of the upright image.
    func deepZoomTile(for source: ResolvedSource, level: Int, column: Int, row: Int) async throws -> ByteBuffer {
        try await answers.answer("dzi|\(level)/\(column)_\(row)", source: source) {
            let plan = try await self.planner.plan(for: source)
            let properties = plan.properties
            let layout = DeepZoomLayout(imageSize: properties.displaySize, name: "dzi")
            let reduction = layout.maxLevel - level
            guard (0...layout.maxLevel).contains(level), column >= 0, row >= 0,
                case let columns = layout.columnSpans(reduction: reduction), column < columns.count,
                case let rows = layout.rowSpans(reduction: reduction), row < rows.count
            else { throw ServerError(.notFound, "no Deep Zoom tile \(level)/\(column)_\(row)") }
            guard properties.orientation == .up else {
                // The tile's pixels (overlap included) at full resolution, scaled to the tile.
                let size = properties.displaySize, step = 1 << reduction
                let x = columns[column].lowerBound * step, y = rows[row].lowerBound * step
                let width = min(size.width, columns[column].upperBound * step) - x
                let height = min(size.height, rows[row].upperBound * step) - y
                let request = try IIIFImageRequest(
                    region: .pixels(PixelRect(x: x, y: y, width: width, height: height)),
                    size: .init(.exact(width: columns[column].count, height: rows[row].count))
                ).resolved(imageSize: size, limits: IIIFLimits(maxWidth: nil, maxHeight: nil, maxArea: nil))
                return try await self.render(request, of: source, plan: plan)
            }
            // A source read in place is read at each level from its own levels: never built.
            let inPlace = plan.mode == .inPlace
            if !inPlace, let pyramid = self.pyramidSource.builtPyramid(.deepZoom, for: source, imageSize: properties.size) {
                return try await pyramid.body(reduction: reduction, column: column, row: row)
            }
            // Until the pyramid exists, the tile (overlap included) from the source's levels, encoded
            // as the builder encodes it: the same bytes the pyramid will hold.
            let levels = plan.levels
            let rect = PixelRect(x: columns[column].lowerBound, y: rows[row].lowerBound, width: columns[column].count, height: rows[row].count)
            let kept = self.configuration.colorManagement.profile(of: properties)
            if levels.levelSize(reduction: reduction).area <= self.configuration.wholeLevelPixelLimit {
                let cut = try await self.decodedLevels.whole(source, levels: levels, reduction: reduction, small: false, cut: rect)
                return try await self.executor.run { _ in ByteBuffer(bytes: try self.encodedTile(cut, profile: kept)) }
            }
            if !inPlace { self.builds.start(.deepZoom, source: source, imageSize: properties.size) }
            return try await self.executor.run { context in
                let pixels = try levels.pixels(of: rect, reduction: reduction, context: context)
                return ByteBuffer(bytes: try self.encodedTile(pixels, profile: kept))
            }
        }
    }
}
