public import Hummingbird
public import Logging
import NIOCore
import ServiceLifecycle
import TesseraCore
import UnixSignals

/// `tessera serve`: IIIF Image API 3.0 and Deep Zoom from any image under a root, pyramids built on
/// demand. A thin Hummingbird application over ``ImageService``; routes live in `Routes/`, and
/// errors become statuses in one place (``ServerMiddleware``).
public struct TesseraServer: Sendable {
    public let configuration: ServerConfiguration
    let service: ImageService

    /// - Throws: ``IdentifierError`` when the root is not a directory; a file-system error when the
    ///   cache directory cannot be made.
    public init(configuration: ServerConfiguration) throws {
        self.configuration = configuration
        service = try ImageService(configuration: configuration, metrics: ServerMetrics())
    }

    /// The router with every route and the middleware (also what HummingbirdTesting drives).
    public func makeRouter() -> Router<BasicRequestContext> {
        let router = Router(options: .autoGenerateHeadEndpoints)
        router.add(middleware: ServerMiddleware(metrics: service.metrics))
        IIIFRoutes(service: service).register(on: router)
        DeepZoomRoutes(service: service).register(on: router)
        StatusRoutes(service: service, started: .now).register(on: router)
        return router
    }

    /// The application, listening on the configured host and port; `onListening` is told the port
    /// (useful when it was 0).
    public func makeApplication(
        logger: Logger = Logger(label: "tessera.serve"), onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let idle = configuration.idleTimeout.components
        return Application(
            router: makeRouter(),
            server: .http1(configuration: .init(idleTimeout: .seconds(idle.seconds) + .nanoseconds(idle.attoseconds / 1_000_000_000))),
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port), serverName: "Tessera/\(tesseraVersion)"),
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? 0) },
            logger: logger)
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
