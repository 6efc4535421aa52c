import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import TesseraCodecs
import TesseraCore
import TesseraTestSupport
import Testing

@testable import TesseraServer

/// Access control through the routes: every route × tier × credential answers as the policy
/// says, no cache hands what one requester may see to another, and the IIIF Auth 2 services.
@Suite("Access control through every route")
struct AccessRouteTests {
    static let policyJSON = """
        {"default": "public",
         "rules": [{"match": "staff/**", "access": "restricted", "groups": ["staff"]},
                   {"match": "restricted/**", "access": "restricted"},
                   {"match": "previews/**", "access": "degraded", "maxSize": 400}]}
        """

    /// A sandbox with an image and a video in each of `public/`, `staff/` and `previews/` (the
    /// preview 1300×1000, the others 400×300), and access control over it; alice is in `staff`,
    /// bob in no group.
    static func setUp(_ json: String = policyJSON, adjusting adjust: (inout AccessPolicy) -> Void = { _ in }) throws -> (
        ServerSandbox, AccessControl
    ) {
        let sandbox = try ServerSandbox()
        for folder in ["public", "staff", "previews", "restricted"] {
            try FileManager.default.createDirectory(atPath: sandbox.root + "/" + folder, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: ServerSandbox.fixtures + "/video/gop1.mp4", toPath: sandbox.root + "/\(folder)/clip.mp4")
            let image = folder == "previews" ? sandbox.root + "/big.png" : ServerSandbox.fixtures + "/photo-400x300.png"
            try FileManager.default.copyItem(atPath: image, toPath: sandbox.root + "/\(folder)/img.png")
        }
        var users = UserFile()
        try users.set("alice", password: "alice's password", groups: ["staff"])
        try users.set("bob", password: "bob's password", groups: [])
        var policy = try AccessPolicy(json: Array(json.utf8), folder: sandbox.base)
        adjust(&policy)
        let access = AccessControl(policy: policy, keys: try SigningKeys(text: AccessPolicyTests.keysText), users: users)
        return (sandbox, access)
    }

    enum Credential: String, CaseIterable {
        case anonymous
        case wrongUser = "wrong user"
        case expiredToken = "expired token"
        case tamperedSignature = "tampered signature"
        case rightUser = "right user"
        case validSignature = "valid signature"
    }

    /// A request's URI and headers as `credential` makes them.
    static func request(_ uri: String, _ credential: Credential, access: AccessControl) throws -> (uri: String, headers: HTTPFields) {
        func cookie(_ user: String, _ groups: [String], expires: Int) throws -> HTTPFields {
            let token = try AccessToken(kind: .access, user: user, groups: groups, expires: expires).encoded(keys: access.keys)
            return [.cookie: "other=1; \(AccessControl.cookieName)=\(token)"]
        }
        let now = AccessControl.now
        switch credential {
        case .anonymous: return (uri, [:])
        case .wrongUser: return (uri, try cookie("bob", [], expires: now + 600))
        case .rightUser: return (uri, try cookie("alice", ["staff"], expires: now + 600))
        case .expiredToken: return (uri, try cookie("alice", ["staff"], expires: now - 1))
        case .validSignature: return (try URLSignature.sign(uri, keys: access.keys, expires: now + 600), [:])
        case .tamperedSignature:
            // A signature made for another URL of the same image.
            let other = try URLSignature.sign(uri + (uri.contains("?") ? "&" : "?") + "x=1", keys: access.keys, expires: now + 600)
            let signature = other[other.firstRange(of: "&signature=")!.upperBound...]
            let signedPart = try URLSignature.sign(uri, keys: access.keys, expires: now + 600)
            return (String(signedPart[..<signedPart.firstRange(of: "&signature=")!.upperBound]) + signature, [:])
        }
    }

    /// The routes checked, each a way to reach what the policy protects: name, URI of the image or
    /// video `id` in `folder`.
    static let routes: [(name: String, uri: @Sendable (String) -> String)] = [
        ("IIIF info.json", { "/iiif/3/\($0)%2Fimg.png/info.json" }),
        ("IIIF full/max", { "/iiif/3/\($0)%2Fimg.png/full/max/0/default.jpg" }),
        ("IIIF full-resolution region", { "/iiif/3/\($0)%2Fimg.png/0,0,256,256/256,/0/default.jpg" }),
        ("IIIF base (303)", { "/iiif/3/\($0)%2Fimg.png" }),
        ("Deep Zoom descriptor", { "/dzi/\($0)%2Fimg.png.dzi" }),
        ("Deep Zoom finest tile", { "/dzi/\($0)%2Fimg.png_files/\($0 == "previews" ? 11 : 9)/0_0.jpeg" }),
        ("stored file", { "/files/\($0)%2Fimg.png" }),
        ("Presentation manifest", { "/presentation/3/\($0)%2Fimg.png/manifest" }),
        ("video file", { "/video/\($0)%2Fclip.mp4" }),
        ("video info.json", { "/video/\($0)%2Fclip.mp4/info.json" }),
        ("video sprite", { "/video/\($0)%2Fclip.mp4/sprite.jpg?frames=2&height=32" }),
        ("video thumbnails.vtt", { "/video/\($0)%2Fclip.mp4/thumbnails.vtt?frames=2&height=32" }),
        ("video trim (POST: job)", { "/video/\($0)%2Fclip.mp4/trim" }),
        ("IIIF Auth probe (status in body)", { "/auth/probe/\($0)%2Fimg.png" }),
        ("listing /api/assets (listed?)", { "/api/assets?dir=\($0)" }),
        ("Presentation collection (listed?)", { "/presentation/3/collection/\($0)" }),
        // Pages are shells that name nothing: what they show comes through the routes above.
        ("viewer page", { "/view/\($0)%2Fimg.png" }),
        ("grid page", { "/grid?dir=\($0)" }),
    ]

    /// What the policy says `route` answers in `tier` (`public`, `previews`, `staff`) for `credential`.
    static func expected(_ route: String, _ folder: String, _ credential: Credential) -> String {
        let isProbe = route.hasPrefix("IIIF Auth probe"), isListing = route.hasPrefix("listing")
        // Collections are one document for everyone: an image only some may see whole is listed
        // when everyone may see its substitute, else for no one (its own manifest answers those who may).
        if route.hasPrefix("Presentation collection") { return folder == "staff" ? "not listed" : "listed" }
        if route.hasSuffix(" page") { return "200" }
        let ok = route == "IIIF base (303)" ? "303" : route.hasPrefix("video trim") ? "202" : isListing ? "listed" : "200"
        let hidden = isListing ? "not listed" : nil
        if folder == "public" { return ok }
        // Probes read cookies and probe tokens, never signatures.
        if isProbe && [.tamperedSignature, .validSignature].contains(credential) { return "401" }
        let authorised: Bool
        switch credential {
        case .anonymous, .expiredToken: authorised = false
        case .wrongUser: authorised = folder == "previews"  // degraded: any user; staff: the group only
        case .tamperedSignature: return hidden ?? "403"
        case .rightUser, .validSignature: authorised = true
        }
        if authorised { return ok }
        let refused = credential == .wrongUser ? "403" : "401"
        guard folder == "previews" else { return hidden ?? refused }
        // The degraded image: the substitute where a route gives part of an image, no more.
        switch route {
        case "IIIF info.json": return "200 substitute"
        case "IIIF full/max": return "200 substitute"
        case "IIIF base (303)", "Deep Zoom descriptor", "Presentation manifest": return ok
        case "listing /api/assets (listed?)": return "listed"
        default: return isProbe ? "401" : "401"
        }
    }

    /// Every route × tier × credential against what the policy says, written as a table when
    /// `TESSERA_ACCESS_TABLE` names a file (docs/security.md's is made so).
    @Test func everyRouteAnswersAsThePolicySays() async throws {
        let (sandbox, access) = try Self.setUp()
        defer { sandbox.cleanUp() }
        let server = try sandbox.server { $0.access = access }
        var table = "| route | tier | " + Credential.allCases.map(\.rawValue).joined(separator: " | ") + " |\n"
        table += "|---|---|" + String(repeating: "---|", count: Credential.allCases.count) + "\n"
        table += try await server.makeApplication().test(.router) { client in
            var rows = ""
            for (name, uri) in Self.routes {
                for (folder, tier) in [("public", "public"), ("previews", "degraded (400 px)"), ("staff", "restricted (group staff)")] {
                    var cells: [String] = []
                    for credential in Credential.allCases {
                        let (target, headers) = try Self.request(uri(folder), credential, access: access)
                        let trim = name.hasPrefix("video trim")
                        let response = try await client.execute(
                            uri: target, method: trim ? .post : .get, headers: headers,
                            body: trim ? ByteBuffer(string: #"{"from": 0, "to": 0.2}"#) : nil)
                        let answer = try Self.describe(response, route: name, folder: folder)
                        // One export at a time: the server refuses more than a few under way (503).
                        if trim, response.status == .accepted, let job = response.headers[.location] {
                            try await poll {
                                try await client.execute(uri: job, method: .get, headers: headers) {
                                    $0.status != .ok || String(buffer: $0.body).contains("\"done\"")
                                }
                            }
                        }
                        #expect(answer == Self.expected(name, folder, credential), "\(name), \(folder), \(credential.rawValue)")
                        cells.append(answer)
                    }
                    rows += "| \(name) | \(tier) | " + cells.joined(separator: " | ") + " |\n"
                }
            }
            // The metrics name routes, never identifiers.
            let metrics = try await client.execute(uri: "/metrics", method: .get) { String(buffer: $0.body) }
            #expect(metrics.contains("tessera_http_requests_total") && !metrics.contains("staff") && !metrics.contains("img.png"))
            let health = try await client.execute(uri: "/health", method: .get) { String(buffer: $0.body) }
            #expect(!health.contains("staff") && !health.contains("img.png"))
            return rows
        }
        // docs/security.md shows this table between its markers; TESSERA_ACCESS_TABLE names a file to rewrite it in.
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs/security.md").standardized.path
        let (begin, end) = ("<!-- access table: begin -->\n", "<!-- access table: end -->")
        if let path = ProcessInfo.processInfo.environment["TESSERA_ACCESS_TABLE"] {
            let text = try String(contentsOfFile: path, encoding: .utf8)
            let start = try #require(text.range(of: begin)), stop = try #require(text.range(of: end))
            try (text[..<start.upperBound] + table + text[stop.lowerBound...]).write(toFile: path, atomically: true, encoding: .utf8)
        }
        let documented = try String(contentsOfFile: docs, encoding: .utf8)
        let start = try #require(documented.range(of: begin)), stop = try #require(documented.range(of: end))
        #expect(String(documented[start.upperBound..<stop.lowerBound]) == table, "docs/security.md's table is not what the server answers")
    }

    /// A response as the table gives it: the status; `substitute` for a 200 that is the degraded
    /// image's substitute; the probe's own status; whether the listing lists the image.
    static func describe(_ response: TestResponse, route: String, folder: String) throws -> String {
        let body = Data(response.body.readableBytesView)
        if route.hasPrefix("Presentation collection") {
            #expect(response.status == .ok)
            return String(buffer: response.body).contains("img.png") ? "listed" : "not listed"
        }
        if route.hasPrefix("listing") {
            let listing = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
            let names = (listing["entries"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
            return names.contains("img.png") ? "listed" : "not listed"
        }
        if route.hasSuffix(" page") {
            #expect(response.status == .ok)
            let text = String(decoding: body, as: UTF8.self)
            #expect(!text.contains("img.png") && !text.contains(folder + "/"), "a page names what it shows")
            return String(response.status.code)
        }
        if route.hasPrefix("IIIF Auth probe") {
            let result = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
            #expect(response.headers[.cacheControl] == "no-store")
            return String(result["status"] as? Int ?? 0)
        }
        guard response.status == .ok || response.status == .accepted else {
            // Refusals are never stored and name no path.
            if [401, 403].contains(response.status.code) {
                #expect(response.headers[.cacheControl] == "no-store")
                let text = String(decoding: body, as: UTF8.self)
                if route == "IIIF info.json" {
                    // The Authorization Flow services, so a viewer can offer to log in; nothing of the image.
                    #expect(text.contains("AuthProbeService2") && !text.contains("\"width\"") && !text.contains("sizes"))
                } else {
                    #expect(!text.contains("/"))
                }
            }
            return String(response.status.code)
        }
        if response.status == .accepted { return "202" }
        if route == "IIIF info.json", let info = try JSONSerialization.jsonObject(with: body) as? [String: Any], info["maxWidth"] as? Int == 400 {
            return "200 substitute"
        }
        if route == "IIIF full/max", let pixels = try? decodePixels(response.body), folder == "previews", pixels.width <= 400 {
            return "200 substitute"
        }
        return "200"
    }

    /// What only an authorised requester gets is private and varies by cookie; a substitute is
    /// public but varies too; a public image's answers are as without a policy.
    @Test func authorisedAnswersArePrivateAndSubstitutesPublic() async throws {
        let (sandbox, access) = try Self.setUp()
        defer { sandbox.cleanUp() }
        let server = try sandbox.server { $0.access = access }
        try await server.test { client in
            let alice = try Self.request("/iiif/3/previews%2Fimg.png/full/max/0/default.jpg", .rightUser, access: access)
            let whole = try await client.execute(uri: alice.uri, method: .get, headers: alice.headers) { $0 }
            #expect(whole.headers[.cacheControl] == "private, max-age=86400")
            #expect(whole.headers[.vary] == "Cookie, Authorization")
            #expect(try decodePixels(whole.body).width == 1300)
            let substitute = try await client.execute(uri: alice.uri, method: .get) { $0 }
            #expect(substitute.headers[.cacheControl] == "public, max-age=86400")
            #expect(substitute.headers[.vary] == "Cookie, Authorization")
            #expect(try decodePixels(substitute.body).width == 400)
            // Revalidating the whole image's tag without the cookie does not keep it (304): the tags differ.
            #expect(whole.headers[.eTag] != substitute.headers[.eTag])
            let revalidated = try await client.execute(uri: alice.uri, method: .get, headers: [.ifNoneMatch: whole.headers[.eTag]!]) { $0 }
            #expect(revalidated.status == .ok)
            #expect(try decodePixels(revalidated.body).width == 400)
            let open = try await client.execute(uri: "/iiif/3/public%2Fimg.png/full/max/0/default.jpg", method: .get) { $0 }
            #expect(open.headers[.vary] == nil)
            #expect(open.headers[.cacheControl] == "public, max-age=86400")
            // A substitute's info.json offers no scale finer than it, and names the Auth 2 services.
            let info = try await client.execute(uri: "/iiif/3/previews%2Fimg.png/info.json", method: .get) { $0 }
            let json = try #require(try JSONSerialization.jsonObject(with: Data(info.body.readableBytesView)) as? [String: Any])
            let factors = ((json["tiles"] as? [[String: Any]])?.first?["scaleFactors"] as? [Int]) ?? []
            #expect(!factors.isEmpty && factors.allSatisfy { $0 * 400 >= 1300 })
            #expect(((json["sizes"] as? [[String: Int]]) ?? []).allSatisfy { ($0["width"] ?? 0) <= 400 })
            let probe = try #require((json["service"] as? [[String: Any]])?.first)
            #expect(probe["type"] as? String == "AuthProbeService2")
            #expect(probe["id"] as? String == "http://localhost/auth/probe/previews%2Fimg.png")
            let accessService = try #require((probe["service"] as? [[String: Any]])?.first)
            #expect(accessService["profile"] as? String == "active")
            let inner = (accessService["service"] as? [[String: Any]] ?? []).compactMap { $0["type"] as? String }
            #expect(inner == ["AuthAccessTokenService2", "AuthLogoutService2"])
            // A public image's info.json has no services.
            let openInfo = try await client.execute(uri: "/iiif/3/public%2Fimg.png/info.json", method: .get) { $0 }
            #expect(!String(buffer: openInfo.body).contains("AuthProbeService2"))
        }
    }

    /// A degraded image's info.json, as the unauthorised get it, offers the largest size the
    /// policy allows (the substitute's, 400 px on the longest side of 1300×1000) and no tile it
    /// would refuse: every tile of every scale factor listed is answered, at its size.
    @Test func aDegradedImageOffersItsLargestSizeAndOnlyTilesItAnswers() async throws {
        let (sandbox, access) = try Self.setUp()
        defer { sandbox.cleanUp() }
        let server = try sandbox.server { $0.access = access }
        try await server.test { client in
            let response = try await client.execute(uri: "/iiif/3/previews%2Fimg.png/info.json", method: .get) { $0 }
            let info = try JSONDecoder().decode(IIIFInfoDocument.self, from: Data(response.body.readableBytesView))
            let sizes = try #require(info.sizes)
            #expect(sizes.last.map { PixelSize(width: $0.width, height: $0.height) } == PixelSize(width: 400, height: 308))
            #expect(sizes.allSatisfy { $0.width <= 400 && $0.height <= 308 })
            for size in sizes {
                let uri = "/iiif/3/previews%2Fimg.png/full/\(size.width),\(size.height)/0/default.png"
                let whole = try await client.execute(uri: uri, method: .get) { $0 }
                #expect(whole.status == .ok, "\(uri)")
                #expect(try decodePixels(whole.body).size == PixelSize(width: size.width, height: size.height), "\(uri)")
            }
            let tiles = try #require(info.tiles?.first)
            #expect(!tiles.scaleFactors.isEmpty)
            for factor in tiles.scaleFactors {
                let step = tiles.width * factor
                for y in stride(from: 0, to: 1000, by: step) {
                    for x in stride(from: 0, to: 1300, by: step) {
                        let (width, height) = (min(step, 1300 - x), min(step, 1000 - y))
                        let scaled = "\((width + factor - 1) / factor),\((height + factor - 1) / factor)"
                        let uri = "/iiif/3/previews%2Fimg.png/\(x),\(y),\(width),\(height)/\(scaled)/0/default.jpg"
                        let status = try await client.execute(uri: uri, method: .get) { $0.status }
                        #expect(status == .ok, "\(uri)")
                    }
                }
            }
        }
    }

    /// Cache poisoning: what an authorised request put in the response cache, the pyramid and the
    /// event loop's shortcut is never handed to an anonymous request for the same URL, and the
    /// substitute an anonymous request cached is never what an authorised one gets.
    @Test func noCacheHandsOneRequestersAnswerToAnother() async throws {
        let (sandbox, access) = try Self.setUp()
        defer { sandbox.cleanUp() }
        try FileManager.default.copyItem(atPath: sandbox.root + "/big.png", toPath: sandbox.root + "/staff/big.png")
        let server = try sandbox.server {
            $0.access = access; $0.smallSourcePixelLimit = 0; $0.levelPixelLimit = 0; $0.tileSize = 512
        }
        let alice = try Self.request("", .rightUser, access: access).headers
        let tiles = ["/iiif/3/staff%2Fbig.png/0,0,512,512/512,512/0/default.jpg", "/iiif/3/public%2Fimg.png/full/max/0/default.jpg"]
        try await server.test { client in
            for uri in tiles {
                let first = try await client.execute(uri: uri, method: .get, headers: alice) { $0 }
                #expect(first.status == .ok)
            }
        }
        await server.service.builds.finished()
        try await server.makeApplication().test(.live) { client in
            let port = try #require(client.port)
            // The pyramid is built: alice's requests are answered on the event loop, her cookie
            // checked every time, privately; the others' go to the router and access control.
            for _ in 0..<2 {
                let again = try await ImmediateResponseTests.get(tiles[0], port: port, headers: alice)
                #expect(again.status == .ok)
                #expect(again.headers[.cacheControl] == "private, max-age=86400")
                #expect(again.headers[.vary] == "Cookie, Authorization")
            }
            #expect(server.shortcuts.count == 1)
            let anonymous = try await ImmediateResponseTests.get(tiles[0], port: port)
            #expect(anonymous.status == .unauthorized)
            let wrong = try await ImmediateResponseTests.get(tiles[0], port: port, headers: try Self.request("", .wrongUser, access: access).headers)
            #expect(wrong.status == .forbidden)
            let expired = try await ImmediateResponseTests.get(
                tiles[0], port: port, headers: try Self.request("", .expiredToken, access: access).headers)
            #expect(expired.status == .unauthorized)
            // A conditional request without the cookie gets no 304 from what alice's answer left.
            let tag = try #require(try await ImmediateResponseTests.get(tiles[0], port: port, headers: alice).headers[.eTag])
            let revalidated = try await ImmediateResponseTests.get(tiles[0], port: port, headers: [.ifNoneMatch: tag])
            #expect(revalidated.status == .unauthorized)
        }
        // Substitute first, then the whole image, then the substitute again: each gets its own.
        try await server.test { client in
            let uri = "/iiif/3/previews%2Fimg.png/full/max/0/default.jpg"
            for (headers, width) in [([:], 400), (alice, 1300), ([:], 400), (alice, 1300)] as [(HTTPFields, Int)] {
                let answer = try await client.execute(uri: uri, method: .get, headers: headers) { $0 }
                #expect(try decodePixels(answer.body).width == width)
            }
            for (headers, limited) in [([:], true), (alice, false), ([:], true)] as [(HTTPFields, Bool)] {
                let info = try await client.execute(uri: "/iiif/3/previews%2Fimg.png/info.json", method: .get, headers: headers) { $0 }
                #expect(String(buffer: info.body).contains("\"maxWidth\": 400") == limited)
            }
        }
    }

    /// An identifier is decided under every name it has: a page suffix, percent-encoding, and a
    /// symbolic link from a public folder to a restricted file.
    @Test func anotherNameForARestrictedImageIsRestrictedToo() async throws {
        let (sandbox, access) = try Self.setUp()
        defer { sandbox.cleanUp() }
        try FileManager.default.createSymbolicLink(atPath: sandbox.root + "/public/link.png", withDestinationPath: sandbox.root + "/staff/img.png")
        let server = try sandbox.server { $0.access = access }
        try await server.test { client in
            for uri in [
                "/iiif/3/public%2Flink.png/info.json", "/iiif/3/staff%2Fimg.png;1/info.json", "/iiif/3/staff%2Fimg.png%3B1/info.json",
                "/iiif/3/st%61ff%2Fimg.png/info.json", "/iiif/3/staff%2Fmissing.png/info.json",
            ] {
                let status = try await client.execute(uri: uri, method: .get) { $0.status }
                #expect(status == .unauthorized, "\(uri)")
            }
            let open = try await client.execute(uri: "/iiif/3/public%2Fimg.png/info.json", method: .get) { $0.status }
            #expect(open == .ok)
        }
    }
}
