import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

@testable import TesseraServer

/// Every route under a base path (`tessera serve --base-path /images`): each URL the server writes
/// (ids, links, redirects, the pages' base, the video API's links) names it, nothing answers
/// outside it, and the metrics label routes as at the root.
@Suite("Routes under a base path")
struct BasePathTests {
    static func server(_ sandbox: ServerSandbox) throws -> TesseraServer {
        try FileManager.default.copyItem(atPath: ServerSandbox.fixtures + "/video/gop1.mp4", toPath: sandbox.root + "/clip.mp4")
        return try sandbox.server {
            $0.basePath = "/images"; $0.publicURL = "https://example.org"
        }
    }

    @Test func everyURLTheServerWritesNamesTheBasePath() async throws {
        let sandbox = try ServerSandbox()
        defer { sandbox.cleanUp() }
        let server = try Self.server(sandbox)
        try await server.test { client in
            try await client.execute(uri: "/images/iiif/3/big.png", method: .get) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == "https://example.org/images/iiif/3/big.png/info.json")
            }
            try await client.execute(uri: "/images/iiif/3/big.png/info.json", method: .get) { response in
                #expect(response.status == .ok)
                let info = try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any]
                #expect(info?["id"] as? String == "https://example.org/images/iiif/3/big.png")
            }
            try await client.execute(uri: "/images/iiif/3/big.png/full/100,/0/default.jpg", method: .get) { response in
                #expect(response.status == .ok)
                #expect(
                    response.headers[values: CacheableResponse.linkField].joined(separator: ",").contains(
                        "<https://example.org/images/iiif/3/big.png/full/100,77/0/default.jpg>;rel=\"canonical\""))
            }
            // A page's base is the path, and its ETag differs from the page mounted at the root's.
            try await client.execute(uri: "/images/view/big.png", method: .get) { response in
                #expect(response.status == .ok)
                let html = String(buffer: response.body)
                #expect(html.contains("<base href=\"/images/\">") && !html.contains("<base href=\"/\">"))
                #expect(response.headers[.eTag] != WebAssets(directory: nil).asset(named: "viewer.html")?.entityTag)
            }
            try await client.execute(uri: "/images/", method: .get) { #expect(String(buffer: $0.body).contains("<base href=\"/images/\">")) }
            try await client.execute(uri: "/images/web/viewer.js", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/images/web/grid.html", method: .get) {
                #expect(String(buffer: $0.body).contains("<base href=\"/images/\">"))
            }
            // The video API's links: the thumbnail track's sprite, and a trim job's location.
            try await client.execute(uri: "/images/video/clip.mp4/thumbnails.vtt?frames=4&height=36&mode=keyframe", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("\n/images/video/clip.mp4/sprite.jpg?frames=4&height=36&mode=keyframe#xywh="))
            }
            try await client.execute(
                uri: "/images/video/clip.mp4/trim", method: .post, body: ByteBuffer(string: "{\"from\": 1, \"to\": 2}")
            ) { response in
                #expect(response.status == .accepted)
                #expect(response.headers[.location]?.hasPrefix("/images/jobs/") == true)
            }
        }
    }

    @Test func nothingAnswersOutsideTheBasePathAndTheMetricsLabelRoutesAsAtTheRoot() async throws {
        let sandbox = try ServerSandbox()
        defer { sandbox.cleanUp() }
        let server = try Self.server(sandbox)
        try await server.test { client in
            for outside in ["/iiif/3/big.png/info.json", "/view/big.png", "/health", "/", "/images/iiif/2/big.png/info.json"] {
                try await client.execute(uri: outside, method: .get) { response in
                    #expect(response.status == .notFound, "\(outside)")
                    // Answered as Tessera answers an error: a line of text, and CORS.
                    #expect(response.headers[.contentType] == "text/plain; charset=utf-8", "\(outside)")
                    #expect(response.headers[.accessControlAllowOrigin] == "*", "\(outside)")
                }
            }
            try await client.execute(uri: "/images/iiif/3/big.png/info.json", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/images/iiif/3/nothing.png/info.json", method: .get) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/images/health", method: .get) { #expect($0.status == .ok) }
        }
        let metrics = String(decoding: server.service.metrics.exposition(queuedJobs: 0), as: UTF8.self)
        #expect(metrics.contains("tessera_http_requests_total{route=\"unmatched\",status=\"404\"} 5"))
        #expect(metrics.contains("tessera_http_requests_total{route=\"iiif_info\",status=\"200\"} 1"))
        #expect(metrics.contains("tessera_http_requests_total{route=\"iiif_info\",status=\"404\"} 1"))
        #expect(metrics.contains("tessera_http_requests_total{route=\"health\",status=\"200\"} 1"))
    }
}
