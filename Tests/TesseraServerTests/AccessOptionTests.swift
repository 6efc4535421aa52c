import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Synchronization
import TesseraCodecs
import TesseraCore
import Testing

@testable import TesseraServer

/// Documents everyone shares name thumbnails everyone may fetch.
extension AccessRouteTests {
    /// A degraded image whose substitute is smaller than the documents' 256-px thumbnails: the
    /// collection's, the folder manifest's and the image manifest's thumbnails are at most the
    /// substitute's size, and each answers an anonymous request with the substitute.
    @Test func documentsNameThumbnailsTheUnauthorisedMayFetch() async throws {
        let (sandbox, access) = try Self.setUp(Self.policyJSON.replacing("\"maxSize\": 400", with: "\"maxSize\": 100"))
        defer { sandbox.cleanUp() }
        let server = try sandbox.server { $0.access = access }
        try await server.test { client in
            var thumbnails: [String] = []
            for document in [
                "/presentation/3/collection/previews", "/presentation/3/previews/manifest", "/presentation/3/previews%2Fimg.png/manifest",
            ] {
                let json = try await client.execute(uri: document, method: .get) { answer in
                    #expect(answer.status == .ok, "\(document)")
                    return try JSONSerialization.jsonObject(with: Data(answer.body.readableBytesView))
                }
                let found = Self.thumbnailIDs(in: json).compactMap { id in id.firstRange(of: "/iiif/3/").map { String(id[$0.lowerBound...]) } }
                #expect(!found.isEmpty, "\(document) names a thumbnail")
                thumbnails += found
            }
            for uri in Set(thumbnails) {
                try await client.execute(uri: uri, method: .get) { answer in
                    #expect(answer.status == .ok, "\(uri)")
                    let pixels = try decodePixels(answer.body)
                    #expect(max(pixels.width, pixels.height) <= 100, "\(uri)")
                }
            }
        }
    }

    /// The `id` of every thumbnail anywhere in a JSON document.
    static func thumbnailIDs(in json: Any) -> [String] {
        if let array = json as? [Any] { return array.flatMap(thumbnailIDs) }
        guard let object = json as? [String: Any] else { return [] }
        let own = (object["thumbnail"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        return own + object.filter { $0.key != "thumbnail" }.values.flatMap(thumbnailIDs)
    }
}

/// The policy's deployment options and the external check's cache, through the routes.
extension AccessRouteTests {
    /// Behind https for viewers on other sites: the cookie is `Secure; SameSite=None`; with
    /// `authorisedCaching: no-store`, authorised answers are never stored.
    @Test func deploymentOptionsReachTheCookieAndTheCacheHeaders() async throws {
        let json = Self.policyJSON.replacing(
            "\"default\": \"public\",",
            with: "\"default\": \"public\", \"secureCookie\": true, \"sameSite\": \"None\", \"authorisedCaching\": \"no-store\",")
        let (sandbox, access) = try Self.setUp(json)
        defer { sandbox.cleanUp() }
        let server = try sandbox.server { $0.access = access }
        try await server.test { client in
            let login = try await client.execute(
                uri: "/auth/login", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "username=alice&password=alice%27s+password")
            ) { $0 }
            let setCookie = try #require(login.headers[.setCookie])
            #expect(setCookie.contains("; HttpOnly; SameSite=None; Secure"))
            let alice = try Self.request("", .rightUser, access: access).headers
            let image = try await client.execute(uri: "/iiif/3/staff%2Fimg.png/full/max/0/default.jpg", method: .get, headers: alice) { $0 }
            #expect(image.status == .ok)
            #expect(image.headers[.cacheControl] == "no-store")
        }
    }

    /// The external check is sent the request's `Cookie` and `Authorization`, and asked once for
    /// the same credentials while its answer is fresh.
    @Test func theExternalCheckSeesTheCredentialsAndIsAskedOnce() async throws {
        final class Count: Sendable { let value = Atomic<Int>(0) }
        let asked = Count()
        let router = Router()
        router.get("check") { request, _ -> Response in
            asked.value.add(1, ordering: .relaxed)
            let allowed = request.headers[.cookie] == "sso=carol-session" && request.headers[.authorization] == nil
            return Response(status: allowed ? .noContent : .unauthorized)
        }
        try await Application(router: router).test(.live) { checker in
            let check = "http://127.0.0.1:\(try #require(checker.port))/check"
            let json = Self.policyJSON.replacing("\"default\": \"public\",", with: "\"default\": \"public\", \"authorize\": \"\(check)\",")
            // Answers kept longer than a loaded machine takes between the requests (10 s by default).
            let (sandbox, access) = try Self.setUp(json) {
                $0.authorizeTimeout = .seconds(600)
                $0.authorizeFreshness = .seconds(3600)
            }
            defer { sandbox.cleanUp() }
            let server = try sandbox.server { $0.access = access }
            try await server.test { client in
                for _ in 0..<3 {
                    let status = try await client.execute(
                        uri: "/iiif/3/restricted%2Fimg.png/info.json", method: .get, headers: [.cookie: "sso=carol-session"]
                    ) { $0.status }
                    #expect(status == .ok)
                }
                #expect(asked.value.load(ordering: .relaxed) == 1)
                let other = try await client.execute(
                    uri: "/iiif/3/restricted%2Fimg.png/info.json", method: .get, headers: [.cookie: "sso=someone-else"]
                ) { $0.status }
                #expect(other == .unauthorized)
                #expect(asked.value.load(ordering: .relaxed) == 2)
            }
        }
    }
}
