import EmbeddedServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import TesseraCodecs
import TesseraCore
import TesseraServer
import Testing

/// The app mounts Tessera's IIIF routes under `/images/iiif/3` beside its own: the mounted routes
/// answer with ids and links that name where they are, behind the app's own authentication, and
/// the app's own routes keep the app's answers, untouched by Tessera's middleware.
@Suite("An app with Tessera's IIIF routes mounted")
struct EmbeddedServerTests {
    static let signedIn: HTTPFields = [.authorization: "Bearer letmein"]

    /// A root with one 400×300 PNG, a cache, and the app over them; removed after `body`.
    static func withApp(_ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("embedded-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let root = directory.appendingPathComponent("root")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("scans"), withIntermediateDirectories: true)
        let pixels = PixelBuffer(width: 400, height: 300, format: .rgb8, bytes: [UInt8](repeating: 200, count: 400 * 300 * 3))
        try ImageEncoder.encode(pixels, as: .png()).write(to: root.appendingPathComponent("scans/page 1.png"))
        var configuration = ServerConfiguration(root: root.path, cacheDirectory: directory.appendingPathComponent("cache").path)
        configuration.publicURL = "https://app.example.org"
        // The suite shares two cores with every other suite of `make test`; the 30-s production
        // deadline is a policy this test does not exercise, so a loaded machine must not trip it.
        configuration.requestTimeout = .seconds(600)
        let tessera = try TesseraServer(configuration: configuration)
        let app = Application(router: makeRouter(tessera: tessera, users: ["letmein": "ada"]))
        try await app.test(.router, body)
    }

    @Test func theMountedRoutesNameWhereTheyAreMounted() async throws {
        try await Self.withApp { client in
            let base = "https://app.example.org/images/iiif/3/scans%2Fpage%201.png"
            try await client.execute(uri: "/images/iiif/3/scans%2Fpage%201.png/info.json", method: .get, headers: Self.signedIn) { response in
                #expect(response.status == .ok)
                let info = try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any]
                #expect(info?["id"] as? String == base)
                #expect(info?["width"] as? Int == 400 && info?["height"] as? Int == 300)
                #expect(response.headers[.accessControlAllowOrigin] == "*")
            }
            try await client.execute(uri: "/images/iiif/3/scans%2Fpage%201.png/full/200,/0/default.jpg", method: .get, headers: Self.signedIn) {
                response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/jpeg")
                let links = response.headers[values: HTTPField.Name("Link")!].joined(separator: ",")
                #expect(links.contains("<\(base)/full/200,150/0/default.jpg>;rel=\"canonical\""))
                let decoded = try ImageDecoder().decode(.data(Data(response.body.readableBytesView)))
                #expect(decoded.pixels.size == PixelSize(width: 200, height: 150))
            }
            try await client.execute(uri: "/images/iiif/3/scans%2Fpage%201.png", method: .get, headers: Self.signedIn) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == base + "/info.json")
            }
            // Tessera's errors inside its routes: a line of text, with CORS.
            try await client.execute(uri: "/images/iiif/3/missing.png/info.json", method: .get, headers: Self.signedIn) { response in
                #expect(response.status == .notFound)
                #expect(response.headers[.contentType] == "text/plain; charset=utf-8")
                #expect(response.headers[.accessControlAllowOrigin] == "*")
            }
            try await client.execute(uri: "/images/iiif/3/scans%2Fpage%201.png/full/max/0/default.bmp", method: .get, headers: Self.signedIn) {
                response in
                #expect(response.status == .badRequest || response.status == .notImplemented)
                #expect(response.headers[.contentType] == "text/plain; charset=utf-8")
            }
        }
    }

    @Test func theAppsAuthenticationGuardsTheMountedRoutes() async throws {
        try await Self.withApp { client in
            for headers: HTTPFields in [[:], [.authorization: "Bearer wrong"]] {
                try await client.execute(uri: "/images/iiif/3/scans%2Fpage%201.png/info.json", method: .get, headers: headers) { response in
                    #expect(response.status == .unauthorized)
                    // The app's answer, not Tessera's: no image data, no CORS, Hummingbird's error body.
                    #expect(response.headers[.accessControlAllowOrigin] == nil)
                    #expect(!String(buffer: response.body).contains("\"id\""))
                }
                try await client.execute(uri: "/images/iiif/3/scans%2Fpage%201.png/full/max/0/default.jpg", method: .get, headers: headers) {
                    #expect($0.status == .unauthorized)
                }
            }
        }
    }

    @Test func theAppsOwnRoutesAreUntouchedByTesseraMiddleware() async throws {
        try await Self.withApp { client in
            try await client.execute(uri: "/hello", method: .get, headers: Self.signedIn) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == "Hello, ada\n")
                #expect(response.headers[.accessControlAllowOrigin] == nil)
            }
            try await client.execute(uri: "/me", method: .get) { response in
                #expect(response.status == .unauthorized)
                #expect(response.headers[.accessControlAllowOrigin] == nil)
                #expect(response.headers[.contentType] != "text/plain; charset=utf-8")
            }
            // What no route matches is the app's 404, not Tessera's.
            for path in ["/nothing", "/iiif/3/scans%2Fpage%201.png/info.json"] {
                try await client.execute(uri: path, method: .get, headers: Self.signedIn) { response in
                    #expect(response.status == .notFound)
                    #expect(response.headers[.accessControlAllowOrigin] == nil)
                    #expect(response.headers[.contentType] != "text/plain; charset=utf-8")
                }
            }
        }
    }
}
