import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// Hummingbird's HTTP/1.1 child channel (its `HTTP1Channel` pipeline, handler for handler) with an
/// ``ImmediateResponseHandler`` after the connection-state handler, where Hummingbird's own
/// `additionalChannelHandlers` cannot go (they come before it, so it would miss requests answered
/// there: an active connection would be closed as idle).
struct ServerChannel: ServerChildChannel, HTTPChannelHandler {
    /// The connection, and what says the client has gone (``ClientGoneHandler``).
    struct Value: ServerChildChannelValue {
        let connection: NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>
        let clientGone: EventLoopFuture<Void>
        var channel: any Channel { connection.channel }
    }

    let responder: HTTPChannelHandler.Responder
    let idleTimeout: Duration?
    let answer: ImmediateResponseHandler.Answer

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            // As HTTP1Channel: the async channel orders pipelined requests; Hummingbird handles
            // errors, and HTTPTypes has validated the outbound headers.
            // Hummingbird's header limits: 80 KiB a field and in all, at most 1000 fields.
            var limits = NIOHTTPDecoderLimitConfiguration()
            limits.maxHeaderFieldCount = 1000
            let pipeline = channel.pipeline.syncOperations
            try pipeline.configureHTTPServerPipeline(
                withPipeliningAssistance: false, withErrorHandling: false, withOutboundHeaderValidation: false,
                withEncoderConfiguration: .init(), withDecoderLimitConfiguration: limits)
            try pipeline.addHandler(HTTP1ToHTTPServerCodec(secure: false))
            try pipeline.addHandler(HTTPConnectionStateHandler(idleTimeout: idleTimeout, logger: logger))
            try pipeline.addHandler(ImmediateResponseHandler(answer: answer))
            let gone = ClientGoneHandler(channel.eventLoop.makePromise())
            try pipeline.addHandler(gone)
            let async = try NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>(
                wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
            return Value(connection: async, clientGone: gone.gone.futureResult)
        }
    }

    /// Serves the connection's requests, and cancels the one being answered when the client goes
    /// (a viewer panned on, a tab closed): the work made for it alone stops
    /// (``SingleFlight/cancelsAbandonedWork``). Hummingbird does not cancel a handler by itself: it
    /// keeps the connection open after the client's end of stream (remote half-closure allowed),
    /// and reads nothing more while a request is answered. Its `consumeWithCancellationOnInboundClose`
    /// would, but closes every connection after its response, keep-alive lost.
    func handle(value: Value, logger: Logger) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await handleHTTP(asyncChannel: value.connection, logger: logger) }
            group.addTask { try? await value.clientGone.get() }
            // Whichever ends first: when the client has gone, the handler ends soon after being
            // cancelled; when the handler ends, the connection is closed, which completes the other.
            await group.next()
            group.cancelAll()
        }
    }
}

/// Completes `gone` when the client's side of the connection ends: its end of stream read, or the
/// connection closed. A client that half-closes its side after sending a request and waits for the
/// answer (rare: no browser does) is taken to have gone, as nginx takes it (its 499).
final class ClientGoneHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    let gone: EventLoopPromise<Void>
    private var completed = false

    init(_ gone: EventLoopPromise<Void>) { self.gone = gone }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .inputClosed? = event as? ChannelEvent { complete() }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        complete()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) { complete() }

    private func complete() {
        guard !completed else { return }
        completed = true
        gone.succeed()
    }
}
