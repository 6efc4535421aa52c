import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// A small HTTP/1.1 server on 127.0.0.1 inside the test process: serves canned responses per path,
/// answers conditional requests, and counts what it was asked.
final class TestHTTPServer: @unchecked Sendable {
    // @unchecked: routes and logs are only touched under `lock`.
    struct Route: Sendable {
        var status: HTTPResponseStatus = .ok
        var body: Data = Data()
        var headers: [(String, String)] = []
        /// Seconds to wait before answering.
        var delay: Double = 0
    }

    struct Logged: Sendable {
        var path: String
        var headers: [String: String]
        var status: Int
    }

    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    private var channel: Channel?
    private let lock = NSLock()
    private var routes: [String: Route] = [:]
    private var log: [Logged] = []

    var port: Int { channel?.localAddress?.port ?? 0 }

    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    func route(_ path: String, _ route: Route) { lock.withLock { routes[path] = route } }

    var requests: [Logged] { lock.withLock { log } }

    func requestCount(_ path: String) -> Int { lock.withLock { log.filter { $0.path == path }.count } }

    init() throws {
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline().flatMap {
                    channel.pipeline.addHandler(Handler(server: self))
                }
            }
        channel = try bootstrap.bind(host: "127.0.0.1", port: 0).wait()
    }

    func shutdown() {
        try? channel?.close().wait()
        try? group.syncShutdownGracefully()
    }

    fileprivate func respond(to head: HTTPRequestHead) -> (Route, HTTPResponseStatus) {
        lock.withLock {
            var route = routes[head.uri] ?? Route(status: .notFound)
            var status = route.status
            let etag = route.headers.first { $0.0.lowercased() == "etag" }?.1
            if let etag, head.headers.first(name: "If-None-Match") == etag, status == .ok {
                status = .notModified
                route.body = Data()
            }
            var headers: [String: String] = [:]
            for (name, value) in head.headers { headers[name.lowercased()] = value }
            log.append(Logged(path: head.uri, headers: headers, status: Int(status.code)))
            return (route, status)
        }
    }

    private final class Handler: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let server: TestHTTPServer
        var head: HTTPRequestHead?

        init(server: TestHTTPServer) { self.server = server }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head): self.head = head
            case .body: break
            case .end:
                guard let head else { return }
                let (route, status) = server.respond(to: head)
                let loop = context.eventLoop
                let contextBox = NIOLoopBound(context, eventLoop: loop)
                let send: @Sendable () -> Void = {
                    let context = contextBox.value
                    var headers = HTTPHeaders(route.headers)
                    headers.replaceOrAdd(name: "Content-Length", value: String(route.body.count))
                    context.write(
                        self.wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
                    if !route.body.isEmpty {
                        context.write(self.wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: route.body)))), promise: nil)
                    }
                    context.writeAndFlush(self.wrapOutboundOut(.end(nil)), promise: nil)
                }
                if route.delay > 0 {
                    loop.scheduleTask(in: .milliseconds(Int64(route.delay * 1000))) { send() }
                } else {
                    send()
                }
            }
        }
    }
}
