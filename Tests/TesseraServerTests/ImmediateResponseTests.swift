import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import TesseraCodecs
import TesseraCore
import TesseraStorage
import Testing

@testable import TesseraServer

#if canImport(Glibc)
    import Glibc
#endif

/// Aligned tiles answered on the event loop (``ImmediateResponseHandler``), against a live server:
/// the same answers as the router's, in the requests' order, never from a changed source.
@Suite("Aligned tiles answered on the event loop")
struct ImmediateResponseTests {
    static let tiles = ["0,0,512,512/512,512", "512,512,512,488/512,488", "0,0,1024,1000/512,500", "full/325,250"]

    /// The event loop's answers equal the router's (in process) for every tile, plain and
    /// conditional: status, body, and every header our code sets; and they carry the length, the
    /// date and the server's name, as Hummingbird's do.
    /// Also with every route under a base path: the event loop answers there, with the same links.
    @Test(arguments: ["", "/images"])
    func theEventLoopsAnswersAreTheRoutersAnswers(basePath: String) async throws {
        let sandbox = try ServerSandbox()
        defer { sandbox.cleanUp() }
        let server = try sandbox.server {
            $0.smallSourcePixelLimit = 0; $0.levelPixelLimit = 0; $0.tileSize = 512; $0.basePath = basePath
        }
        // The first request is answered from the source (and probes it) through the router, and
        // starts the pyramid's build.
        try await Self.warm(server, "\(basePath)/iiif/3/big.png/\(Self.tiles[0])/0/default.jpg")
        try await server.makeApplication().test(.live) { client in
            let port = try #require(client.port)
            await server.service.builds.finished()
            #expect(server.shortcuts.count == 0)
            for tile in Self.tiles {
                let uri = "\(basePath)/iiif/3/big.png/\(tile)/0/default.jpg"
                let first = try await Self.get(uri, port: port)
                let again = try await Self.get(uri, port: port)
                let routed = try await server.makeApplication().test(.router) { router in
                    try await router.execute(uri: uri, method: .get)
                }
                for answer in [first, again] {
                    #expect(answer.status == .ok)
                    #expect(Self.fields(answer.headers) == Self.fields(routed.headers), "\(tile)")
                    #expect(answer.body == routed.body, "\(tile)")
                    #expect(answer.headers[.contentLength] == String(routed.body.readableBytes))
                    #expect(answer.headers[.server] == "Tessera/\(tesseraVersion)")
                    #expect(answer.headers[CacheableResponse.linkField]?.contains("\(basePath)/iiif/3/big.png/") == true)
                    #expect(answer.headers[.date].flatMap(HTTPDate.seconds(from:)) != nil)
                }
                let tag = try #require(routed.headers[.eTag])
                let routedNotModified = try await server.makeApplication().test(.router) { router in
                    try await router.execute(uri: uri, method: .get, headers: [.ifNoneMatch: tag])
                }
                let notModified = try await Self.get(uri, port: port, headers: [.ifNoneMatch: tag])
                #expect(routedNotModified.status == .notModified)
                #expect(notModified.status == .notModified)
                #expect(Self.fields(notModified.headers) == Self.fields(routedNotModified.headers), "\(tile)")
                #expect(notModified.body.readableBytes == 0)
            }
            // Every tile but the first's first request went the short way: one entry per URL.
            #expect(server.shortcuts.count == Self.tiles.count)
            let metrics = String(decoding: server.service.metrics.exposition(queuedJobs: 0), as: UTF8.self)
            // Each tile answered 200 three times (twice live, once routed) and 304 twice, plus the first request.
            #expect(metrics.contains("tessera_http_requests_total{route=\"iiif_image\",status=\"200\"} \(1 + 3 * Self.tiles.count)"))
            #expect(metrics.contains("tessera_http_requests_total{route=\"iiif_image\",status=\"304\"} \(2 * Self.tiles.count)"))
        }
    }

    /// A source changed in place is never answered from what was found for its old version, even
    /// within the root's freshness: its identity is read on every request.
    @Test func aChangedSourceIsNeverAnsweredWithItsOldTiles() async throws {
        let sandbox = try ServerSandbox()
        defer { sandbox.cleanUp() }
        let server = try sandbox.server {
            $0.smallSourcePixelLimit = 0; $0.levelPixelLimit = 0; $0.tileSize = 512; $0.rootFreshness = .seconds(3600)
        }
        let uri = "/iiif/3/big.png/0,0,512,512/512,512/0/default.jpg"
        try await Self.warm(server, uri)
        try await server.makeApplication().test(.live) { client in
            let port = try #require(client.port)
            let old = try await Self.get(uri, port: port)
            await server.service.builds.finished()
            let oldAgain = try await Self.get(uri, port: port)
            #expect(oldAgain.headers[.eTag] == old.headers[.eTag])
            #expect(server.shortcuts.count == 1)
            // Another picture, another size: a new identity.
            let inverted = ServerSandbox.pattern(width: 1300, height: 1001)
            try ImageEncoder.encode(inverted, as: .png()).write(to: URL(fileURLWithPath: sandbox.root + "/big.png"))
            // The new version rendered through the router first; the event loop must still not
            // answer with the old version's tile.
            try await Self.warm(server, uri)
            let new = try await Self.get(uri, port: port)
            #expect(new.status == .ok)
            #expect(new.headers[.eTag] != old.headers[.eTag])
            #expect(new.body != old.body)
        }
    }

    /// Pipelined requests are answered in order even when an early one goes to the router and a later
    /// one could be answered at once: the later waits its turn.
    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        let sandbox = try ServerSandbox()
        defer { sandbox.cleanUp() }
        let server = try sandbox.server {
            $0.smallSourcePixelLimit = 0; $0.levelPixelLimit = 0; $0.tileSize = 512
        }
        let tile = "/iiif/3/big.png/0,0,512,512/512,512/0/default.jpg"
        // Answered through the router: the render, and the pyramid's build it starts.
        try await Self.warm(server, tile)
        try await server.makeApplication().test(.live) { client in
            await server.service.builds.finished()
            let port = try #require(client.port)
            // Slow (a region to compose), immediate, slow, immediate, and one that asks to close the
            // connection (the router's path does that); all in one write, as a browser keeping its
            // connection alive would send them.
            let paths = ["/iiif/3/big.png/100,100,700,600/333,/0/default.png", tile, "/health", tile, tile]
            let request = paths.enumerated().map { index, path in
                "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: \(index == paths.count - 1 ? "close" : "keep-alive")\r\n\r\n"
            }.joined()
            // Read on a thread of its own: the server answering it runs in this process's pools.
            let (answers, closed) = try await onOwnThread { try Self.exchange(request, port: port, responses: paths.count, awaitingClose: true) }
            #expect(answers.map { $0["content-type"] } == ["image/png", "image/jpeg", "application/json", "image/jpeg", "image/jpeg"])
            #expect(closed)
            // Each came while another was unanswered, so each went to the router.
            #expect(server.shortcuts.count == 0)
            // Alone, the tile is answered at once.
            let (alone, _) = try await onOwnThread {
                try Self.exchange("GET \(tile) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", port: port, responses: 1)
            }
            #expect(alone.first?["content-type"] == "image/jpeg")
            #expect(server.shortcuts.count == 1)
        }
    }

    /// A response read from a live server.
    struct LiveResponse {
        var status: HTTPResponse.Status
        var headers: HTTPFields
        var body: ByteBuffer
    }

    /// One GET of `uri` from the live server on `port`, on a connection of its own kept alive (so
    /// the event loop may answer it), read with the test sockets' 300-s deadline rather than
    /// HummingbirdTesting's live client's fixed 20 s, which a loaded two-core machine running the
    /// whole suite missed. Read on a Dispatch thread: the blocking socket never holds one of Swift
    /// concurrency's threads, which the server needs to answer.
    static func get(_ uri: String, port: Int, headers: HTTPFields = [:]) async throws -> LiveResponse {
        let request = "GET \(uri) HTTP/1.1\r\nHost: localhost\r\n" + headers.map { "\($0.name.rawName): \($0.value)\r\n" }.joined() + "\r\n"
        return try await onOwnThread { try readResponse(request, port: port) }
    }

    private static func readResponse(_ request: String, port: Int) throws -> LiveResponse {
        let socket = try connectedSocket(port: port, sending: request)
        defer { close(socket) }
        var received = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            if let end = received.firstRange(of: Array("\r\n\r\n".utf8)) {
                let lines = String(decoding: received[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
                let code = Int(lines.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
                var fields = HTTPFields()
                for line in lines.dropFirst() {
                    guard let colon = line.firstIndex(of: ":"), let name = HTTPField.Name(String(line[..<colon])) else { continue }
                    fields.append(HTTPField(name: name, value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
                }
                let length = Int(fields[.contentLength] ?? "0") ?? 0
                if received.count >= end.upperBound + length {
                    return LiveResponse(
                        status: HTTPResponse.Status(code: code), headers: fields,
                        body: ByteBuffer(bytes: received[end.upperBound..<(end.upperBound + length)]))
                }
            }
            let count = read(socket, &chunk, chunk.count)
            guard count > 0 else { throw POSIXError(.ECONNRESET) }
            received += chunk[..<count]
        }
    }

    /// Answers `uri` once through the router, in process and with no client deadline, so that the
    /// live client's request for it finds the render done: HummingbirdTesting's live client gives
    /// up after 20 s, which a cold render can take on two cores running the whole suite (a full
    /// `make test` saw it). What the live requests test (which path answers, and with what) is the
    /// same either way.
    static func warm(_ server: TesseraServer, _ uri: String) async throws {
        let response = try await server.makeApplication().test(.router) { try await $0.execute(uri: uri, method: .get) }
        #expect(response.status == .ok)
    }

    /// The headers our code sets (Hummingbird adds length, date and server name), comparable.
    static func fields(_ headers: HTTPFields) -> [String: String] {
        let ours: [HTTPField.Name] = [
            .eTag, .lastModified, .cacheControl, .contentType, CacheableResponse.linkField, .vary, .accessControlAllowOrigin,
        ]
        var fields: [String: String] = [:]
        for field in headers where ours.contains(field.name) { fields[field.name.canonicalName, default: ""] += field.value }
        return fields
    }

    /// Writes `request` to a new connection to 127.0.0.1:`port` at once and reads `responses`
    /// responses (each framed by Content-Length): their headers by lowercase name, and (when
    /// `awaitingClose`; else false) whether the server then closed the connection.
    static func exchange(_ request: String, port: Int, responses: Int, awaitingClose: Bool = false) throws -> (
        answers: [[String: String]], closed: Bool
    ) {
        let socket = try connectedSocket(port: port, sending: request)
        defer { close(socket) }
        var received = [UInt8]()
        var answers: [[String: String]] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while answers.count < responses {
            // Parse whatever complete responses are buffered.
            let separator = Array("\r\n\r\n".utf8)
            if let end = received.firstRange(of: separator) {
                let lines = String(decoding: received[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
                var headers: [String: String] = [:]
                for line in lines.dropFirst() {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
                let length = Int(headers["content-length"] ?? "0") ?? 0
                if received.count >= end.upperBound + length {
                    answers.append(headers)
                    received.removeFirst(end.upperBound + length)
                    continue
                }
            }
            let count = read(socket, &chunk, chunk.count)
            guard count > 0 else { throw POSIXError(.ECONNRESET) }
            received += chunk[..<count]
        }
        return (answers, awaitingClose && received.isEmpty && read(socket, &chunk, chunk.count) == 0)
    }
}
