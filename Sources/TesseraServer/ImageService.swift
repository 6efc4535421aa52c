import FoundationEssentials
import NIOCore
import TesseraCodecs
import TesseraCore
import TesseraIIIF
import TesseraTiles

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the routes ask of the library, with no HTTP in it: resolve an identifier, describe an
/// image, render an IIIF request, give a Deep Zoom descriptor or tile. Every answer is an encoded
/// body plus what HTTP caching needs.
///
/// Small sources are decoded with shrink-on-load at the coarsest power-of-two scale that serves the
/// request and kept in the decoded-image cache; large ones get pyramids (``PyramidStore``), from
/// which aligned IIIF tiles are served as the stored bytes and any other region is composed from
/// the tiles of the level that serves it. Tiled multi-resolution TIFFs are read tile by tile from
/// their own levels, with nothing derived. Blocking work runs on the server's bounded executor.
final class ImageService: Sendable {
    let configuration: ServerConfiguration
    /// The root: a directory's resolver, or a store's.
    let resolver: IdentifierResolver?
    let objects: ObjectSourceResolver?
    let executor: WorkExecutor
    /// This server's pyramid directory (also with a shared cache: its size is reported).
    let pyramids: PyramidStore
    /// Where pyramids are found and built: the shared store when there is one, else ``pyramids``.
    let pyramidSource: any PyramidStoring
    /// Opens sources as the kind they are (``SourcePlanner``).
    let planner: SourcePlanner
    let metrics: ServerMetrics
    let decoded: MemoryImageCache
    let responses: ResponseCache
    let plans = Locked(LRUCache<String, SourcePlan>(costLimit: 4096))
    let resolutions = Locked(LRUCache<String, (source: ResolvedSource, checked: ContinuousClock.Instant)>(costLimit: 4096))
    /// Renders and whole-level decodes, each done once for all who ask at the same time, and
    /// cancelled when all of them have gone (closed their connections, or passed their deadline).
    let renders: SingleFlight<ByteBuffer>
    let levels: LevelFlights
    /// Pyramids being built in the background (``buildInBackground(_:source:imageSize:)``), by source and kind.
    let backgroundBuilds = Locked([String: Task<Void, Never>]())
    /// How every source is decoded: the pixel limit, and whether colour is converted or kept.
    let decodeOptions: DecodeOptions

    /// How `source` is decoded: ``decodeOptions``, of its page.
    func decodeOptions(for source: ResolvedSource) -> DecodeOptions {
        var options = decodeOptions
        options.pageIndex = source.pageIndex
        return options
    }

    init(configuration: ServerConfiguration, metrics: ServerMetrics) throws {
        self.configuration = configuration
        self.metrics = metrics
        if let store = configuration.rootStore {
            resolver = nil
            objects = ObjectSourceResolver(store: store, freshness: configuration.rootFreshness)
        } else {
            resolver = try IdentifierResolver(root: configuration.root)
            objects = nil
        }
        executor = WorkExecutor(threadCount: configuration.workerCount, queueLimit: configuration.queueLimit)
        // Pyramids whose tiles keep the sources' profiles live apart (a dot directory, which the
        // default store passes over), so a server restarted with the other setting never serves
        // tiles made under this one.
        let keepsProfiles = configuration.colorManagement == .keepSourceProfile
        pyramids = try PyramidStore(
            directory: configuration.cacheDirectory + (keepsProfiles ? "/.kept-profiles" : ""), byteLimit: configuration.cacheByteLimit,
            tileSize: configuration.tileSize, jpegQuality: configuration.jpegQuality,
            sourcePixelLimit: configuration.sourcePixelLimit, colorManagement: configuration.colorManagement,
            executor: executor, metrics: metrics)
        if let shared = configuration.sharedCache {
            let recipe = PyramidRecipe(
                tileSize: configuration.tileSize, jpegQuality: configuration.jpegQuality,
                sourcePixelLimit: configuration.sourcePixelLimit, colorManagement: configuration.colorManagement,
                jobs: executor.threadCount)
            pyramidSource = SharedPyramidStore(
                store: shared, prefix: keepsProfiles ? "kept-profiles/" : "", recipe: recipe,
                leaseDuration: configuration.leaseDuration, pollInterval: configuration.leaseDuration / 30,
                executor: executor, metrics: metrics)
        } else {
            pyramidSource = pyramids
        }
        decodeOptions = DecodeOptions(maximumPixelCount: configuration.sourcePixelLimit, colorManagement: configuration.colorManagement)
        planner = SourcePlanner(configuration: configuration)
        decoded = MemoryImageCache(
            costLimit: configuration.decodedCacheByteLimit, countLimit: 100_000,
            entryCostLimit: configuration.decodedCacheByteLimit / 2)
        responses = ResponseCache(byteLimit: configuration.responseCacheByteLimit)
        renders = SingleFlight(cancelsAbandonedWork: true, onAbandoned: metrics.recordAbandonedWork)
        levels = LevelFlights(onAbandoned: metrics.recordAbandonedWork)
    }

    /// The source `identifier` names: a file under the root, or an object in the root store.
    func resolve(_ identifier: String) async throws -> ResolvedSource {
        if let objects { return try await objects.resolve(identifier) }
        return try resolver!.resolve(identifier)
    }

    /// The source's header (``plan(for:)``).
    func properties(of source: ResolvedSource) async throws -> ImageProperties { try await plan(for: source).properties }

    /// How `source` is served, planned once per identity (its header read once) and checked
    /// against what reading it costs: a source that never holds its whole image
    /// (``RegionSource/holdsWholeImage``: levels are made whole only up to
    /// ``ServerConfiguration/wholeLevelPixelLimit``, regions are held to the IIIF limits) is limited
    /// only by its rows (``ServerConfiguration/streamedRowPixelLimit``); any other is decoded whole
    /// somewhere and held to the source pixel limit.
    func plan(for source: ResolvedSource) async throws -> SourcePlan {
        if let known = plans.withLock({ $0.value(for: source.key) }) { return known }
        let planner = self.planner, options = decodeOptions(for: source)
        let plan = try await executor.run(priority: .high) { _ in try planner.plan(for: source, options: options) }
        let size = plan.properties.size
        if !plan.source.holdsWholeImage {
            guard size.width <= configuration.streamedRowPixelLimit else {
                throw ServerError(.tooLarge, "too wide: rows of \(size.width) pixels, over the limit of \(configuration.streamedRowPixelLimit)")
            }
        } else if size.area > configuration.sourcePixelLimit {
            throw ImageDecodingError.tooLarge(pixels: size.area, limit: configuration.sourcePixelLimit)
        }
        plans.withLock { _ = $0.insert(plan, for: source.key, cost: 1) }
        return plan
    }

    // MARK: Support

    /// The body for `key` of `source`: from the response cache when it is there, answered on the
    /// calling task (no child task, no other thread); else made by `make` under the request
    /// deadline, identical concurrent misses sharing one `make`.
    func answer(
        _ key: String, source: ResolvedSource, make: @escaping @Sendable () async throws -> ByteBuffer
    ) async throws -> ByteBuffer {
        let fullKey = source.key + "|" + key
        if let body = responses.body(for: fullKey) {
            metrics.recordCache(tier: "response", hit: true)
            return body
        }
        return try await withDeadline(configuration.requestTimeout) {
            // Looked up again: another request may have stored it meanwhile.
            if let body = self.responses.body(for: fullKey) {
                self.metrics.recordCache(tier: "response", hit: true)
                return body
            }
            self.metrics.recordCache(tier: "response", hit: false)
            return try await self.renders.value(for: fullKey) {
                let body = try await make()
                self.responses.store(body, for: fullKey)
                return body
            }
        }
    }

    /// The strong validator of a response: the source's identity, the colour setting (the same
    /// request answers with other pixels when profiles are kept) and the canonical request, hashed
    /// (a change of any changes it).
    func entityTag(_ source: ResolvedSource, _ key: String) -> String {
        let colour = configuration.colorManagement == .keepSourceProfile ? "kept-profile" : "srgb"
        return EntityTag.make((source.key + "|" + colour + "|" + key).utf8)
    }

    /// Requests waiting for a render now (each shared render counted once per request).
    var waitingRenders: Int { renders.waitingCallers }

    /// Renders and decodes cancelled because their clients went, not ended yet.
    var workBeingStopped: Int { renders.stoppingCount + levels.stoppingCount }

    /// Jobs waiting for a worker thread now.
    var queuedJobs: Int { executor.queuedCount }
}
