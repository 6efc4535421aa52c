public import Hummingbird
public import NIOCore

/// The request context of `tessera serve`'s own router: Hummingbird's basic one plus the peer's
/// address, which per-client limits (``ClientLimits``) and failed-login counting key on. An app
/// that mounts Tessera's routes with a context of its own gets the same when its context conforms
/// to `RemoteAddressRequestContext`.
public struct TesseraRequestContext: RequestContext, RemoteAddressRequestContext {
    /// Hummingbird's storage of the request's context.
    public var coreContext: CoreRequestContextStorage
    /// The connection's peer: a client, or a proxy in front of the server.
    public let remoteAddress: SocketAddress?

    /// The context of a request read from `source`'s channel.
    ///
    /// - Parameter source: the application's channel and logger.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
