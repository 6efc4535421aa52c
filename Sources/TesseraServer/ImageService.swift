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
/// How each source is served is its plan (``SourcePlanner``): small sources are shrunk on load
/// whole, sources read in place (pyramidal TIFF, JPEG 2000, registered kinds) from their own
/// levels, and the others get pyramids (``PyramidStore``) built in the background
/// (``BackgroundBuilds``), from which aligned IIIF tiles are served as the stored bytes and any
/// other region is composed from the tiles of the level that serves it. Levels and tiles are kept
/// decoded (``DecodedLevels``) and answers encoded (``ResponseAnswers``). Blocking work runs on the
/// server's bounded executor.
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
    /// How each source is served, decided once (``SourcePlan``).
    let planner: SourcePlanner
    let metrics: ServerMetrics
    /// Levels and tiles decoded once and kept for every request.
    let decodedLevels: DecodedLevels
    /// Encoded answers kept, each made once for all who ask at the same time.
    let answers: ResponseAnswers
    let resolutions = Locked(LRUCache<String, (source: ResolvedSource, checked: ContinuousClock.Instant)>(costLimit: 4096))
    /// Pyramids being built in the background.
    let builds: BackgroundBuilds
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
        planner = SourcePlanner(configuration: configuration, executor: executor)
        decodedLevels = DecodedLevels(configuration: configuration, executor: executor, metrics: metrics)
        answers = ResponseAnswers(configuration: configuration, metrics: metrics)
        builds = BackgroundBuilds(pyramids: pyramidSource)
    }

    /// The source `identifier` names: a file under the root, or an object in the root store.
    func resolve(_ identifier: String) async throws -> ResolvedSource {
        if let objects { return try await objects.resolve(identifier) }
        return try resolver!.resolve(identifier)
    }

    // MARK: Gauges

    /// Requests waiting for a render now (each shared render counted once per request).
    var waitingRenders: Int { answers.waitingCount }

    /// Renders and decodes cancelled because their clients went, not ended yet.
    var workBeingStopped: Int { answers.stoppingCount + decodedLevels.flights.stoppingCount }

    /// Jobs waiting for a worker thread now.
    var queuedJobs: Int { executor.queuedCount }
}
