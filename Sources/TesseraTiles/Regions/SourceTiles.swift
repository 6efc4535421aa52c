public import TesseraCodecs
public import TesseraCore
public import TesseraViewing

/// An image file seen as the pyramid it would be built into, with no pyramid: each tile read from
/// the source when asked (``RegionLevels``, over any ``RegionSource``), so a viewer (`TiledViewEngine`,
/// `tessera render`) opens any image at once, at the cost of its decode, as `tessera serve`
/// answers an unseen image.
///
/// Levels of at most ``wholeLevelPixelLimit`` pixels (a first screen, an overview) are decoded
/// whole once, with the source's cheapest decode, and kept for the tiles after (one level at a
/// time: memory is that level, 48 MB at the default); a finer level's tile reads only the rows
/// and columns it needs. Tiles are of the upright image: a turned source's are read from its
/// stored pixels and turned.
public final class SourceTiles: TiledImageSource {
    public let layout: any TileLayout
    /// The source's levels, which tiles are read from.
    public let levels: RegionLevels
    /// The most pixels a level may have to be held whole.
    public let wholeLevelPixelLimit: Int
    private let executor: WorkExecutor
    private let held = Locked<(reduction: Int, level: Task<PixelBuffer, any Error>)?>(nil)

    /// - Parameters:
    ///   - source: the image's bytes, read again for each level or tile.
    ///   - properties: the source's header (`ImageDecoder.probe(_:)`).
    ///   - options: the limits and colour handling of every decode.
    ///   - tileSize: the tiles' side in pixels (an IIIF layout, as `tessera serve` describes images).
    ///   - wholeLevelPixelLimit: the most pixels a level may have to be decoded whole and kept
    ///     (16 Mi pixels by default: 48 MB as RGB).
    ///   - executor: where decodes run (they block).
    public convenience init(
        _ source: ImageSource, properties: ImageProperties, options: DecodeOptions = DecodeOptions(), tileSize: Int = 256,
        wholeLevelPixelLimit: Int = 16 << 20, executor: WorkExecutor = .shared
    ) {
        self.init(
            RegionLevels(DecodedRegionSource(source, properties: properties, options: options)), tileSize: tileSize,
            wholeLevelPixelLimit: wholeLevelPixelLimit, executor: executor)
    }

    /// The tiles of `levels`, of any ``RegionSource`` (a slide a kind opened reads its own levels).
    public init(_ levels: RegionLevels, tileSize: Int = 256, wholeLevelPixelLimit: Int = 16 << 20, executor: WorkExecutor = .shared) {
        self.levels = levels
        layout = IIIFLayout(imageSize: levels.properties.displaySize, name: "", tileSize: tileSize)
        self.wholeLevelPixelLimit = wholeLevelPixelLimit
        self.executor = executor
    }

    public func tile(reduction: Int, column: Int, row: Int) async throws -> PixelBuffer {
        let columns = layout.columnSpans(reduction: reduction), rows = layout.rowSpans(reduction: reduction)
        guard reduction >= 0, reduction < layout.levelCount, columns.indices.contains(column), rows.indices.contains(row) else {
            throw ImageDecodingError.corrupt(reason: "no tile \(column),\(row) at reduction \(reduction)")
        }
        let orientation = levels.properties.orientation
        let storedLevel = levels.levelSize(reduction: reduction)
        let displayed = PixelRect(x: columns[column].lowerBound, y: rows[row].lowerBound, width: columns[column].count, height: rows[row].count)
        let stored = orientation.storedRect(ofDisplayed: displayed, storedSize: storedLevel)
        let pixels: PixelBuffer
        if storedLevel.area <= wholeLevelPixelLimit {
            let whole = try await wholeLevel(reduction)
            guard let cut = whole.cropped(to: stored) else { throw ImageDecodingError.corrupt(reason: "a tile outside its level") }
            pixels = cut
        } else {
            let levels = self.levels
            pixels = try await executor.run { context in try levels.pixels(of: stored, reduction: reduction, context: context) }
        }
        return orientation.apply(to: pixels)
    }

    /// Level `reduction`, whole: decoded once for every tile that wants it, the one held before
    /// let go.
    private func wholeLevel(_ reduction: Int) async throws -> PixelBuffer {
        let levels = self.levels, executor = self.executor
        let task = held.withLock { held -> Task<PixelBuffer, any Error> in
            if let held, held.reduction == reduction { return held.level }
            let task = Task { try await executor.run { context in try levels.level(reduction, context: context) } }
            held = (reduction, task)
            return task
        }
        return try await task.value
    }
}
