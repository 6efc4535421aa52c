import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import TesseraCodecs
import TesseraCore
import TesseraTestSupport
import Testing

@testable import TesseraServer

/// A cold request takes each step before its answer once, whichever doors it passes: the URL
/// parsed, the identifier resolved, the source's header read (counted in
/// `tessera_request_steps_total`).
@Suite("Request steps")
struct RequestStepsTests {
    /// How many times `step` was taken, from the metrics' exposition.
    static func count(_ step: ServerMetrics.RequestStep, in server: TesseraServer) -> Int {
        let text = String(decoding: server.service.metrics.exposition(queuedJobs: 0), as: UTF8.self)
        let prefix = "tessera_request_steps_total{step=\"\(step.rawValue)\"} "
        return text.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Int($0.dropFirst(prefix.count)) } ?? 0
    }

    /// Asks for `uri` as a server does: the event loop's door first (which finds no stored tile for
    /// a cold request and passes it on), then the router's.
    static func get(_ uri: String, from server: TesseraServer) async throws -> HTTPResponse.Status {
        let request = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1", path: uri)
        #expect(server.immediateAnswer(iiifPath: "/iiif/3")(request, nil) == nil, "a cold request has no stored tile")
        let status = Locked(HTTPResponse.Status.ok)
        try await server.test { client in
            let response = try await client.execute(uri: uri, method: .get)
            status.withLock { $0 = response.status }
        }
        return status.withLock { $0 }
    }

    @Test(arguments: ["cold.jpg", "cold.tif"])
    func aColdRegionIsParsedResolvedAndProbedOnce(file: String) async throws {
        let sandbox = try ServerSandbox()
        defer { sandbox.cleanUp() }
        // A JPEG (its plan: derived) or a pyramidal TIFF (read in place) of `width` × 700.
        func write(width: Int) throws {
            let bytes =
                file.hasSuffix(".jpg")
                ? try ImageEncoder.encode(ServerSandbox.pattern(width: width, height: 700), as: .jpeg(quality: 90))
                : TestTIFF.encode(ServerSandbox.levels(width: width, height: 700, count: 4), layout: .tiles(128))
            try bytes.write(to: URL(fileURLWithPath: sandbox.root + "/" + file))
        }
        try write(width: 1000)
        // Resolutions reused for the whole test, however slowly a loaded machine runs it.
        let server = try sandbox.server {
            $0.smallSourcePixelLimit = 0
            $0.rootFreshness = .seconds(3600)
        }
        #expect(try await Self.get("/iiif/3/\(file)/300,200,300,200/150,/0/default.jpg", from: server) == .ok)
        #expect(Self.count(.parse, in: server) == 1)
        #expect(Self.count(.resolution, in: server) == 1)
        #expect(Self.count(.headerRead, in: server) == 1)
        // Another region of the same image: resolved and planned already.
        #expect(try await Self.get("/iiif/3/\(file)/17,33,500,400/250,/0/default.jpg", from: server) == .ok)
        #expect(Self.count(.resolution, in: server) == 1)
        #expect(Self.count(.headerRead, in: server) == 1)
        // A changed file is resolved and read again.
        try write(width: 900)
        #expect(try await Self.get("/iiif/3/\(file)/0,0,300,200/150,/0/default.jpg", from: server) == .ok)
        #expect(Self.count(.resolution, in: server) == 2)
        #expect(Self.count(.headerRead, in: server) == 2)
    }
}
