public import Hummingbird
import HummingbirdCore
public import Logging
import CTesseraProcess
import NIOPosix
import NIOCore
import ServiceLifecycle
import TesseraCore
import UnixSignals
import TesseraIIIF

/// `tessera serve`: IIIF Image API 3.0 and Deep Zoom from any image under a root, pyramids built on
/// demand; a video API for trimming; and the pages people use (listing, viewer, grid, trimmer). A
/// thin Hummingbird application over ``ImageService`` and ``VideoService``; routes live in
/// `Routes/`, and errors become statuses in one place (``ServerMiddleware``).
public struct TesseraServer: Sendable {
    public let configuration: ServerConfiguration
    let service: ImageService
    let videos: VideoService
    let jobs: TrimJobs
    let lister: AssetLister
    let assets: WebAssets
    /// What answering aligned tiles on the event loop found, per URL (``ImmediateResponseHandler``).
    let shortcuts: StoredTileShortcuts

    /// - Throws: ``IdentifierError`` when the root is not a directory; a file-system error when the
    ///   cache directory cannot be made.
    public init(configuration: ServerConfiguration) throws {
        self.configuration = configuration
        service = try ImageService(configuration: configuration, metrics: ServerMetrics())
        videos = VideoService(images: service)
        // A dot name: the pyramid store passes over it (its pyramids are the other entries).
        jobs = try TrimJobs(directory: configuration.cacheDirectory + "/.jobs", executor: service.executor)
        lister = AssetLister(resolver: service.resolver, executor: service.executor)
        assets = WebAssets(directory: configuration.pagesDirectory)
        var common = commonResponseFields
        common[.server] = Self.serverName
        shortcuts = StoredTileShortcuts(reuse: configuration.rootFreshness, commonFields: common)
    }

    /// The router with every route and the middleware (also what HummingbirdTesting drives).
    public func makeRouter() -> Router<BasicRequestContext> {
        let router = Router(options: .autoGenerateHeadEndpoints)
        router.add(middleware: ServerMiddleware(metrics: service.metrics))
        IIIFRoutes(service: service).register(on: router)
        DeepZoomRoutes(service: service).register(on: router)
        StatusRoutes(service: service, started: .now).register(on: router)
        VideoRoutes(videos: videos, jobs: jobs).register(on: router)
        AssetRoutes(lister: lister).register(on: router)
        PageRoutes(assets: assets).register(on: router)
        return router
    }

    /// The application, listening on the configured host and port; `onListening` is told the port
    /// (useful when it was 0).
    public func makeApplication(
        logger: Logger = Logger(label: "tessera.serve"), onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let idle = configuration.idleTimeout
        let serverName = Self.serverName
        let answer = immediateAnswer()
        return Application(
            router: makeRouter(),
            server: HTTPServerBuilder { responder in ServerChannel(responder: responder, idleTimeout: idle, answer: answer) },
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port), serverName: serverName),
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? 0) },
            logger: logger)
    }

    /// The `Server` header's value.
    static let serverName = "Tessera/\(tesseraVersion)"

    /// The responses ``ImmediateResponseHandler`` makes on the event loop (aligned tiles of built
    /// pyramids, with every header the router's path gives them: ``StoredTileShortcuts`` builds
    /// them), dated and counted in the metrics.
    func immediateAnswer() -> ImmediateResponseHandler.Answer {
        let iiif = IIIFRoutes(service: service)
        let metrics = service.metrics
        let date = DateHeader()
        let shortcuts = self.shortcuts
        return { request in
            let start = ContinuousClock.now
            guard case (var head, let body)? = iiif.immediateTileResponse(to: request, shortcuts: shortcuts) else { return nil }
            head.headerFields[.date] = date.now
            metrics.recordRequest(route: "iiif_image", status: head.status.code, duration: ContinuousClock.now - start)
            return (head, body)
        }
    }

    /// Process-wide settings for a process that mainly serves; call once, before the process starts
    /// any thread (the `tessera` command does, right after parsing `serve`). A library embedding
    /// the server decides for itself.
    ///
    /// - The event loops' threads become Swift concurrency's global executor, as swift-nio's
    ///   `unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor` does: a handler
    ///   runs on the thread that read its request, and an answer from the memory caches never
    ///   changes thread (warm tiles: 13.3k → 20.7k requests/s measured). Blocking work still goes to
    ///   the ``WorkExecutor``'s own threads.
    /// - glibc keeps at most two malloc arenas. By default every thread that allocates gets its own
    ///   (up to 8 per core), and memory freed in one stays there for its thread: warm tiles at full
    ///   rate with a 20 MB memory cache peaked at 112 MB of RSS with ten arenas, 96 MB with two.
    ///   Buffers of 256 KiB and more are mapped apiece, so freeing one gives its memory back.
    ///
    /// - Returns: whether the event loops became the global executor. The hook is the runtime's
    ///   private variable, so it is used only with the compilers it is known for (below 6.6, as
    ///   swift-nio guards it) and only when nothing else set it first; otherwise tasks run on
    ///   Swift's own pool, correct and a hop slower.
    @discardableResult
    public static func configureProcess() -> Bool {
        // Measured on the Serving bench's unaligned regions: peak RSS 86 → 72 MB, same requests/s.
        _ = tessera_tune_malloc(2, 256 << 10)
        #if compiler(<6.6)
            // The runtime's hook type: the job, and the runtime's own enqueue (unused).
            typealias EnqueueHook = @convention(thin) (UnownedJob, @convention(thin) (UnownedJob) -> Void) -> Void
            // `any()` is the current loop when called on one, so a task stays on its connection's thread.
            let hook: EnqueueHook = { job, _ in MultiThreadedEventLoopGroup.singleton.any().executor.enqueue(ExecutorJob(job)) }
            return tessera_install_global_enqueue_hook(unsafeBitCast(hook, to: UnsafeRawPointer.self))
        #else
            return false
        #endif
    }

    /// Serves until SIGTERM or SIGINT, then stops accepting, lets in-flight requests finish within
    /// ``ServerConfiguration/shutdownGracePeriod``, and returns.
    public func run(logger: Logger = Logger(label: "tessera.serve"), onListening: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        var group = ServiceGroupConfiguration(
            services: [makeApplication(logger: logger, onListening: onListening)],
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        group.maximumGracefulShutdownDuration = configuration.shutdownGracePeriod
        try await ServiceGroup(configuration: group).run()
    }
}
