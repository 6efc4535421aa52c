import HummingbirdCore
import HTTPTypes
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
    typealias Value = NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>

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
            return try NIOAsyncChannel(wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
        }
    }

    func handle(value: Value, logger: Logger) async {
        await handleHTTP(asyncChannel: value, logger: logger)
    }
}
