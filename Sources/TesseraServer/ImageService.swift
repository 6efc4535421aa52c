import FoundationEssentials
import NIOCore
import TesseraCodecs
import TesseraCore
import TesseraIIIF
import TesseraTiles

/// What the routes ask of the library, with no HTTP in it: resolve an identifier (under access
/// control), describe an image, render an IIIF request. Every answer is an encoded body plus what
/// HTTP caching needs. It owns the parts each job is done by, and hands them to the routes:
///
/// - ``SourcePlanner``: how each source is served (``SourcePlan``: resampled, in place, derived),
///   decided once with its header;
/// - ``PlanRenderer``: the pixels of a request, by the renderer its plan names
///   (``InPlaceRenderer``, ``DerivedRenderer``, ``AnimationRenderer``);
/// - ``StoredTileReader``: aligned tiles answered with the bytes of a built pyramid
///   (``PyramidStore``, built in the background by ``BackgroundBuilds``);
/// - ``DeepZoomTiles``: Deep Zoom's descriptors and tiles;
/// - ``MapTiles``: web-map tiles, TileJSON and WMTS of georeferenced sources;
/// - ``DecodedLevels`` and ``ResponseAnswers``: levels and tiles kept decoded, answers kept encoded.
///
/// Blocking work runs on the server's bounded executor.
final class ImageService: Sendable {
    let configuration: ServerConfiguration
    /// Identifiers resolved, once for both doors.
    let sources: SourceResolver
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
    /// Pyramids being built in the background.
    let builds: BackgroundBuilds
    /// Aligned tiles answered with their stored bytes.
    let storedTiles: StoredTileReader
    /// Every request's pixels, as its source's plan says.
    let renderer: PlanRenderer
    /// Deep Zoom's descriptors and tiles.
    let deepZoom: DeepZoomTiles
    /// Georeferenced sources' web-map tiles and documents.
    let maps: MapTiles
    init(configuration: ServerConfiguration, metrics: ServerMetrics) throws {
        self.configuration = configuration
        self.metrics = metrics
        sources = try SourceResolver(configuration: configuration, metrics: metrics)
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
        planner = SourcePlanner(configuration: configuration, executor: executor, metrics: metrics)
        decodedLevels = DecodedLevels(configuration: configuration, executor: executor, metrics: metrics)
        answers = ResponseAnswers(configuration: configuration, metrics: metrics)
        builds = BackgroundBuilds(pyramids: pyramidSource)
        storedTiles = StoredTileReader(
            configuration: configuration, sources: sources, planner: planner, pyramids: pyramidSource, metrics: metrics)
        renderer = PlanRenderer(
            inPlace: InPlaceRenderer(configuration: configuration, decodedLevels: decodedLevels, executor: executor, metrics: metrics),
            derived: DerivedRenderer(
                configuration: configuration, decodeOptions: planner.decodeOptions, decodedLevels: decodedLevels, pyramids: pyramidSource,
                builds: builds, executor: executor),
            animation: AnimationRenderer(configuration: configuration, decodeOptions: planner.decodeOptions, executor: executor))
        deepZoom = DeepZoomTiles(
            configuration: configuration, planner: planner, answers: answers, decodedLevels: decodedLevels, pyramids: pyramidSource,
            builds: builds, renderer: renderer, executor: executor)
        maps = MapTiles(
            planner: planner, answers: answers, decodedLevels: decodedLevels, executor: executor, jpegQuality: configuration.jpegQuality,
            metrics: metrics)
    }

    /// The source `identifier` names: a file under the root, or an object in the root store.
    func resolve(_ identifier: String) async throws -> ResolvedSource { try await sources.resolve(identifier) }

    /// The root directory's resolver; nil for a root in a store.
    var resolver: IdentifierResolver? { sources.files }

    // MARK: Gauges

    /// Requests waiting for a render now (each shared render counted once per request).
    var waitingRenders: Int { answers.waitingCount }

    /// Renders and decodes cancelled because their clients went, not ended yet.
    var workBeingStopped: Int { answers.stoppingCount + decodedLevels.flights.stoppingCount }

    /// Jobs waiting for a worker thread now.
    var queuedJobs: Int { executor.queuedCount }
}
