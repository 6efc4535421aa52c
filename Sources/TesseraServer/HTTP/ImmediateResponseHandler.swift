import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Answers on the event loop, in the middle of reading it, a request that ``answer`` can answer at
/// once (an aligned tile of a built pyramid: one small file read), and passes every other request on
/// to Hummingbird's router unchanged.
///
/// Why: a warm tile costs little work, but the router's path (an async sequence per connection, a
/// task resumed per request, the responder chain) costs several times that work again. nginx
/// serves files from its event loop; this does the same for the one kind of request that is a file.
///
/// The handler sits after Hummingbird's connection-state handler, which so still sees every request
/// and response (idle timeout, graceful shutdown). Responses keep the requests' order: while a
/// request passed on is unanswered, later ones are passed on too. A request that asks to close the
/// connection, and any request while the connection cannot take more output (a client that does
/// not read), is passed on as well, to the router's path, which handles both.
final class ImmediateResponseHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// The whole response to a request head, or nil to pass the request on. Called on the event
    /// loop: it must not wait for anything but a small local read.
    typealias Answer = @Sendable (HTTPRequest, SocketAddress?) -> (head: HTTPResponse, body: ByteBuffer)?

    private let answer: Answer
    /// Requests passed on whose responses are not yet written in full.
    private var pending = 0
    /// Whether the request being read was answered here (its remaining parts are dropped).
    private var answeredCurrent = false

    init(answer: @escaping Answer) {
        self.answer = answer
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            answeredCurrent = false
            if pending == 0, context.channel.isWritable, !Self.asksToClose(request), let (head, body) = answer(request, context.channel.remoteAddress)
            {
                answeredCurrent = true
                context.write(wrapOutboundOut(.head(head)), promise: nil)
                if body.readableBytes > 0 { context.write(wrapOutboundOut(.body(body)), promise: nil) }
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
                return
            }
            pending += 1
        case .body:
            if answeredCurrent { return }
        case .end:
            if answeredCurrent {
                answeredCurrent = false
                return
            }
        }
        context.fireChannelRead(data)
    }

    /// Whether `request` asks that the connection be closed after it (`Connection: close`), which
    /// the router's path does.
    static func asksToClose(_ request: HTTPRequest) -> Bool {
        request.headerFields[values: .connection].contains { $0.lowercased().contains("close") }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { pending = max(pending - 1, 0) }
        context.write(data, promise: promise)
    }
}
