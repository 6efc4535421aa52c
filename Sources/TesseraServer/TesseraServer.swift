import CTesseraProcess
public import Hummingbird
import HummingbirdCore
public import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import TesseraCore
import TesseraIIIF
import UnixSignals

/// `tessera serve`: IIIF Image API 3.0 and Deep Zoom from any image under a root, pyramids built on
/// demand; a video API for trimming; and the pages people use (listing, viewer, grid, trimmer).
///
/// Run it as an application (``run(logger:onListening:)``), or mount its route collections in an
/// app of your own, each at any path and with your own request context (``iiifRoutes(presentationPath:authPath:_:)``,
/// ``routes(_:)``, docs/embedding.md). Routes live in `Routes/`; errors become statuses in one
/// place (``TesseraMiddleware``), around Tessera's routes only.
public struct TesseraServer: Sendable {
    /// What it was made with; fixed for its lifetime.
    public let configuration: ServerConfiguration
    let service: ImageService
    let videos: VideoService
    let jobs: TrimJobs
    let lister: AssetLister
    let presentation: PresentationService
    let assets: WebAssets
    /// What answering aligned tiles on the event loop found, per URL (``ImmediateResponseHandler``).
    let shortcuts: StoredTileShortcuts
    /// When this server was made (`/health`'s uptime).
    let started = ContinuousClock.now
    /// Its directories, which no error text a client or a job reports may name (resolved once).
    let privatePaths: PrivatePaths

    /// - Throws: `IdentifierError` when the root is not a directory; a file-system error when the
    ///   cache directory cannot be made.
    public init(configuration: ServerConfiguration) throws {
        self.configuration = configuration
        privatePaths = PrivatePaths(configuration)
        let restricts = configuration.access?.policy.restrictsAnything ?? false
        service = try ImageService(configuration: configuration, metrics: ServerMetrics(perSourceDetail: !restricts))
        videos = VideoService(answers: service.answers, executor: service.executor, jpegQuality: configuration.jpegQuality)
        // A dot name: the pyramid store passes over it (its pyramids are the other entries).
        jobs = try TrimJobs(
            directory: configuration.cacheDirectory + "/.jobs", executor: service.executor, privatePaths: privatePaths)
        lister = AssetLister(resolver: service.resolver, executor: service.executor, kinds: service.planner.kinds)
        presentation = PresentationService(images: service, videos: videos, lister: lister)
        assets = WebAssets(directory: configuration.pagesDirectory)
        var common = commonResponseFields
        common[.server] = Self.serverName
        shortcuts = StoredTileShortcuts(reuse: configuration.rootFreshness, commonFields: common)
    }

    /// `tessera serve`'s router: ``routes(_:)`` under ``ServerConfiguration/basePath``, and a
    /// request no route matches answered and counted as Tessera answers (also what
    /// HummingbirdTesting drives).
    public func makeRouter() -> Router<TesseraRequestContext> {
        let router = Router(context: TesseraRequestContext.self, options: .autoGenerateHeadEndpoints)
        router.addRoutes(routes(), atPath: RouterPath(configuration.basePath))
        // Added after the routes, so it wraps only the router's answer to what no route matched.
        router.add(
            middleware: TesseraMiddleware(
                metrics: service.metrics, route: "unmatched", limits: configuration.clientLimits, access: configuration.access,
                privatePaths: privatePaths))
        return router
    }

    // MARK: Route collections, to mount anywhere

    /// IIIF Image API 3.0: `{identifier}` (303 to info.json), `{identifier}/info.json` and
    /// `{identifier}/{region}/{size}/{rotation}/{quality}.{format}`. Mount it where its URLs should
    /// be, `router.addRoutes(server.iiifRoutes(), atPath: "/images/iiif/3")`: every `id` and `Link`
    /// it writes names that path. `tessera serve` has it at `/iiif/3`.
    ///
    /// - Parameters:
    ///   - presentationPath: where the app mounted ``presentationRoutes(iiifPath:mediaPath:_:)``,
    ///     if it did: each info.json then names its manifest (`partOf`).
    ///   - authPath: where the app mounted ``authRoutes(iiifPath:_:)``, if it did: the info.json of
    ///     an image not everyone may see then names its probe service.
    ///   - context: the app's request context (inferred from where the collection is added).
    public func iiifRoutes<Context: RequestContext>(
        presentationPath: String? = nil, authPath: String? = nil, _ context: Context.Type = Context.self
    ) -> RouteCollection<Context> {
        collection {
            IIIFRoutes(service: service, manifests: presentationPath.map { .path($0) }, auth: authPath.map { .path($0) }).add(to: $0)
        }
    }

    /// The IIIF Authorization Flow 2.0 services of ``ServerConfiguration/access``: `probe/{identifier}`,
    /// `login` (the access service), `token` and `logout`; empty without a policy. Mount them where
    /// the IIIF routes' info.json should name them (`authPath` of ``iiifRoutes(presentationPath:authPath:_:)``).
    /// `tessera serve` has them at `/auth`.
    ///
    /// - Parameters:
    ///   - iiifPath: where the app mounted ``iiifRoutes(presentationPath:authPath:_:)`` (probe results name substitutes there).
    ///   - context: the app's request context (inferred from where the collection is added).
    public func authRoutes<Context: RequestContext>(iiifPath: String, _ context: Context.Type = Context.self) -> RouteCollection<Context> {
        collection { routes in
            if let access = configuration.access { AuthRoutes(service: service, access: access, iiif: .path(iiifPath)).add(to: routes) }
        }
    }

    /// IIIF Presentation API 3.0: `collection` (the root), `collection/{folder}`, and
    /// `{identifier}/manifest` (an image, a document as a canvas per page, a video, or a folder as
    /// one manifest of its images). Mount it where its URLs should be; `iiifPath` is where the app
    /// mounted ``iiifRoutes(presentationPath:authPath:_:)`` (the manifests' image services), `mediaPath`
    /// where ``videoRoutes(_:)`` and ``fileRoutes(_:)`` are. `tessera serve` has it at
    /// `/presentation/3`.
    ///
    /// - Parameters:
    ///   - iiifPath: where the app mounted ``iiifRoutes(presentationPath:authPath:_:)``: `/images/iiif/3`.
    ///   - mediaPath: where the app mounted ``videoRoutes(_:)`` and ``fileRoutes(_:)`` ("" for the root).
    ///   - context: the app's request context (inferred from where the collection is added).
    public func presentationRoutes<Context: RequestContext>(
        iiifPath: String, mediaPath: String = "", _ context: Context.Type = Context.self
    ) -> RouteCollection<Context> {
        collection { PresentationRoutes(service: presentation, iiif: .path(iiifPath), media: .path(mediaPath)).add(to: $0) }
    }

    /// `files/{identifier}`: an image or document as it is stored (what manifests offer as their
    /// `rendering`), with ranges and validators.
    public func fileRoutes<Context: RequestContext>(_ context: Context.Type = Context.self) -> RouteCollection<Context> {
        collection { FileRoutes(images: service).add(to: $0) }
    }

    /// Deep Zoom: `{identifier}.dzi` and `{identifier}_files/{level}/{column}_{row}.jpeg` (`/dzi` in
    /// `tessera serve`).
    public func deepZoomRoutes<Context: RequestContext>(_ context: Context.Type = Context.self) -> RouteCollection<Context> {
        collection { DeepZoomRoutes(service: service).add(to: $0) }
    }

    /// Web maps of georeferenced sources (GeoTIFF, COG): `{identifier}/{z}/{x}/{y}.png` (`.jpg`,
    /// `.webp`, `@2x`), `{identifier}/tilejson.json` and `{identifier}/WMTSCapabilities.xml`
    /// (`/maps` in `tessera serve`).
    public func mapRoutes<Context: RequestContext>(_ context: Context.Type = Context.self) -> RouteCollection<Context> {
        collection { MapRoutes(service: service).add(to: $0) }
    }

    /// The video API the trimmer uses: `video/{identifier}` (the file, with ranges), its
    /// `info.json`, `sprite.jpg` and `thumbnails.vtt`, `POST video/{identifier}/trim`, and the
    /// export jobs at `jobs/{id}` and `jobs/{id}/result`.
    public func videoRoutes<Context: RequestContext>(_ context: Context.Type = Context.self) -> RouteCollection<Context> {
        collection { VideoRoutes(videos: videos, images: service, jobs: jobs).add(to: $0) }
    }

    /// `api/assets`: the folders, images and videos under the root, a page at a time, as JSON.
    public func assetRoutes<Context: RequestContext>(_ context: Context.Type = Context.self) -> RouteCollection<Context> {
        collection { AssetRoutes(lister: lister, access: configuration.access).add(to: $0) }
    }

    /// The pages: the listing (`/`), `grid`, `view/{identifier}`, `trim/{identifier}`, and their
    /// files under `web/`. Each page's `<base>` names where they are mounted, and the pages ask for
    /// the other collections relative to it: mount them under the same path (``routes(_:)`` does).
    public func pageRoutes<Context: RequestContext>(_ context: Context.Type = Context.self) -> RouteCollection<Context> {
        collection { PageRoutes(assets: assets).add(to: $0) }
    }

    /// `health` (JSON: status, version, uptime in seconds) and `metrics` (Prometheus text).
    public func statusRoutes<Context: RequestContext>(_ context: Context.Type = Context.self) -> RouteCollection<Context> {
        collection { StatusRoutes(service: service, started: started).add(to: $0) }
    }

    /// Everything `tessera serve` answers, laid out as it lays it out: IIIF under `iiif/3`, Deep
    /// Zoom under `dzi`, maps under `maps`, the rest at the collection's own root. Mounted at `/tessera`, the viewer is
    /// at `/tessera/view/{identifier}` and its tiles at `/tessera/iiif/3/…`.
    public func routes<Context: RequestContext>(_ context: Context.Type = Context.self) -> RouteCollection<Context> {
        let all = RouteCollection(context: Context.self)
        let auth: MountLocation? = configuration.access == nil ? nil : .beside("auth", depth: 2)
        all.addRoutes(
            collection { IIIFRoutes(service: service, manifests: .beside("presentation/3", depth: 2), auth: auth).add(to: $0) }, atPath: "iiif/3")
        if let access = configuration.access {
            all.addRoutes(collection { AuthRoutes(service: service, access: access, iiif: .beside("iiif/3", depth: 1)).add(to: $0) }, atPath: "auth")
        }
        all.addRoutes(
            collection {
                PresentationRoutes(service: presentation, iiif: .beside("iiif/3", depth: 2), media: .beside("", depth: 2)).add(to: $0)
            }, atPath: "presentation/3")
        all.addRoutes(fileRoutes())
        all.addRoutes(deepZoomRoutes(), atPath: "dzi")
        all.addRoutes(mapRoutes(), atPath: "maps")
        all.addRoutes(statusRoutes())
        all.addRoutes(videoRoutes())
        all.addRoutes(assetRoutes())
        all.addRoutes(pageRoutes())
        return all
    }

    private func collection<Context: RequestContext>(_ add: (LabelledRoutes<Context>) -> Void) -> RouteCollection<Context> {
        let routes = RouteCollection(context: Context.self)
        add(
            LabelledRoutes(
                collection: routes, metrics: service.metrics, limits: configuration.clientLimits, access: configuration.access,
                privatePaths: privatePaths))
        return routes
    }

    /// The HTTP/1.1 server `tessera serve` runs, for an app's own `Application(router:server:…)`:
    /// Hummingbird's HTTP/1.1 channel with two additions. Aligned tiles of pyramids already built
    /// are answered on the event loop as their requests are read, before the router, when the IIIF
    /// routes are mounted at `iiifPath` (through the router, warm aligned tiles ran at 0.31–0.42×
    /// nginx's rate; on the event loop at about 0.5×, docs/benchmarks.md). And a request whose
    /// client went away is cancelled, with the work made for it alone.
    ///
    /// - Important: a tile answered on the event loop passes through none of the app's middleware.
    ///   Use this only when nothing of the app's (authentication, logging) must see every IIIF
    ///   request; otherwise keep Hummingbird's `.http1()`, which still serves every route.
    /// - Parameter iiifPath: where the app mounted ``iiifRoutes(presentationPath:authPath:_:)``.
    public func httpServer(iiifPath: String) -> HTTPServerBuilder {
        let (idle, answer) = (configuration.idleTimeout, immediateAnswer(iiifPath: iiifPath))
        return HTTPServerBuilder { responder in ServerChannel(responder: responder, idleTimeout: idle, answer: answer) }
    }

    /// The application, listening on the configured host and port; `onListening` is told the port
    /// (useful when it was 0).
    public func makeApplication(
        logger: Logger = Logger(label: "tessera.serve"), onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let serverName = Self.serverName
        return Application(
            router: makeRouter(),
            server: httpServer(iiifPath: configuration.basePath + "/iiif/3"),
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
    func immediateAnswer(iiifPath: String) -> ImmediateResponseHandler.Answer {
        let iiif = IIIFRoutes(service: service)
        let mount = iiifPath.hasSuffix("/") ? String(iiifPath.dropLast()) : iiifPath
        let metrics = service.metrics
        let date = DateHeader()
        let shortcuts = self.shortcuts
        let limits = configuration.clientLimits
        let credentialedOrigins = Set(configuration.access?.policy.tokenOrigins ?? [])
        return { request, peer in
            let start = ContinuousClock.now
            // A credentialed request from a trusted viewer's origin needs CORS headers of its own: the router's.
            if !credentialedOrigins.isEmpty, let origin = request.headerFields[.origin], credentialedOrigins.contains(origin) { return nil }
            guard case (var head, let body)? = iiif.immediateTileResponse(to: request, mount: mount, shortcuts: shortcuts) else { return nil }
            // A client over its limit, or one the router would limit as a user, is left to the
            // router (which refuses the first, and counts the second under its user).
            if let limits {
                guard AccessControl.cookie(AccessControl.cookieName, in: request.headerFields[values: .cookie]) == nil,
                    limits.admit(limits.client(peer: peer, forwardedFor: request.headerFields[values: ClientLimits.forwardedFor])) == nil
                else { return nil }
            }
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
    ///   the `WorkExecutor`'s own threads.
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
