import TesseraCodecs
import TesseraCore
import TesseraIIIF
import TesseraTiles

/// Decoded pixels kept in memory for every request: whole levels, each made once however many
/// requests want it at the same time (``LevelFlights``), and tiles decoded once, in one cache
/// bounded by bytes (``ServerConfiguration/decodedCacheByteLimit``).
final class DecodedLevels: Sendable {
    /// Levels and tiles by key (a source's identity and the level or tile's place).
    let cache: MemoryImageCache
    /// Levels being made now.
    let flights: LevelFlights
    private let configuration: ServerConfiguration
    private let executor: WorkExecutor
    private let metrics: ServerMetrics

    init(configuration: ServerConfiguration, executor: WorkExecutor, metrics: ServerMetrics) {
        self.configuration = configuration
        self.executor = executor
        self.metrics = metrics
        cache = MemoryImageCache(
            costLimit: configuration.decodedCacheByteLimit, countLimit: 100_000,
            entryCostLimit: configuration.decodedCacheByteLimit / 2)
        flights = LevelFlights(onAbandoned: metrics.recordAbandonedWork)
    }

    /// Level `reduction` of `source`, whole, or the part `cut` of it: the level made once however
    /// many requests want it at the same time, and kept. A level that is the one above it halved is
    /// made from that one when it too is held whole (so a viewer's first screen decodes the source
    /// once); any other from the source, by streaming only what it needs, and each `cut` is
    /// answered as soon as its rows are decoded. A small source, which never gets a pyramid whose
    /// tiles its answers must match, is instead shrunk on load to the level's size and resampled
    /// (``Thumbnailer``), as sharp as a thumbnail.
    func whole(_ source: ResolvedSource, levels: RegionLevels, reduction: Int, small: Bool, cut: PixelRect? = nil) async throws -> PixelBuffer {
        if let held = held(source, reduction: reduction, small: small, cut: cut) { return held }
        metrics.recordCache(tier: "decoded", hit: false)
        let key = levelKey(source, reduction: reduction, small: small)
        let (executor, configuration, metrics) = (self.executor, self.configuration, self.metrics)
        return try await flights.region(cut, of: key, size: levels.levelSize(reduction: reduction)) { writer in
            let pixels: PixelBuffer
            if small {
                metrics.recordSourceDecode()
                var options = ThumbnailOptions(
                    sizing: .fit(maxPixelSize: reduction == 0 ? nil : levels.levelSize(reduction: reduction).longestSide),
                    createThumbnailWithTransform: false, maximumPixelCount: configuration.sourcePixelLimit)
                options.colorManagement = configuration.colorManagement
                options.pageIndex = source.pageIndex
                pixels = try await Thumbnailer().thumbnail(source.input, options: options, executor: executor).pixels
            } else if levels.halvesPreviousLevel(reduction),
                levels.levelSize(reduction: reduction - 1).area <= configuration.wholeLevelPixelLimit
            {
                let above = try await self.whole(source, levels: levels, reduction: reduction - 1, small: false)
                pixels = try await executor.run { _ in RegionLevels.halved(above) }
            } else {
                metrics.recordSourceDecode()
                pixels = try await executor.run { context in try levels.level(reduction, context: context, progress: writer.report) }
            }
            self.cache.store(pixels, for: key)
            return pixels
        }
    }

    /// Level `reduction` of `source`, or the part `cut` of it, when the level is held whole already
    /// (counted as a hit); nil, with nothing decoded, when it is not.
    func held(_ source: ResolvedSource, reduction: Int, small: Bool = false, cut: PixelRect? = nil) -> PixelBuffer? {
        guard let level = cache.image(for: levelKey(source, reduction: reduction, small: small)) else { return nil }
        metrics.recordCache(tier: "decoded", hit: true)
        return cut.flatMap { level.cropped(to: $0) } ?? level
    }

    /// A tile decoded by `decode`, through the cache under `key`.
    func tile(key: String, decode: () throws -> PixelBuffer) throws -> PixelBuffer {
        if let tile = cache.image(for: key) {
            metrics.recordCache(tier: "decoded", hit: true)
            return tile
        }
        metrics.recordCache(tier: "decoded", hit: false)
        let tile = try decode()
        cache.store(tile, for: key)
        return tile
    }

    /// The key of a whole level of `source`: resampled levels of small sources apart from the
    /// region core's.
    private func levelKey(_ source: ResolvedSource, reduction: Int, small: Bool) -> String {
        source.key + (small ? "/resampled/" : "/level/") + String(reduction)
    }
}
