import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import TesseraCodecs
import TesseraCore
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
    static func setUp(_ json: String = policyJSON) throws -> (ServerSandbox, AccessControl) {
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
        let access = AccessControl(
            policy: try AccessPolicy(json: Array(json.utf8), folder: sandbox.base), keys: try SigningKeys(text: AccessPolicyTests.keysText),
            users: users)
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
        ("IIIF Auth probe (status in body)", { "/auth/probe/\($0)%2Fimg.png" }),
        ("listing /api/assets (listed?)", { "/api/assets?dir=\($0)" }),
        ("Presentation collection (listed?)", { "/presentation/3/collection/\($0)" }),
    ]

    /// What the policy says `route` answers in `tier` (`public`, `previews`, `staff`) for `credential`.
    static func expected(_ route: String, _ folder: String, _ credential: Credential) -> String {
        let isProbe = route.hasPrefix("IIIF Auth probe"), isListing = route.hasPrefix("listing")
        // Collections are one document for everyone: an image only some may see whole is listed
        // when everyone may see its substitute, else for no one (its own manifest answers those who may).
        if route.hasPrefix("Presentation collection") { return folder == "staff" ? "not listed" : "listed" }
        let ok = route == "IIIF base (303)" ? "303" : isListing ? "listed" : "200"
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
                        let answer = try await client.execute(uri: target, method: .get, headers: headers) {
                            try Self.describe($0, route: name, folder: folder)
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
        if route.hasPrefix("IIIF Auth probe") {
            let result = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
            #expect(response.headers[.cacheControl] == "no-store")
            return String(result["status"] as? Int ?? 0)
        }
        guard response.status == .ok else {
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
        await server.service.backgroundBuildsFinished()
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

    /// The login page's form sets the access cookie; wrong passwords are refused and, past the
    /// limit, so is the right one; the token page posts a probe token to an allowed origin only;
    /// logout clears the cookie.
    @Test func loginTokenAndLogout() async throws {
        let (sandbox, access) = try Self.setUp()
        defer { sandbox.cleanUp() }
        let server = try sandbox.server { $0.access = access }
        try await server.test { client in
            let form = try await client.execute(uri: "/auth/login?origin=http://localhost", method: .get) { $0 }
            #expect(form.status == .ok)
            #expect(String(buffer: form.body).contains("name=\"password\""))
            #expect(form.headers[HTTPField.Name("Content-Security-Policy")!]?.contains("frame-ancestors 'none'") == true)
            let formType: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
            let login = try await client.execute(
                uri: "/auth/login", method: .post, headers: formType, body: ByteBuffer(string: "username=alice&password=alice%27s+password")
            ) { $0 }
            #expect(login.status == .ok)
            let setCookie = try #require(login.headers[.setCookie])
            #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Lax") && setCookie.contains("Max-Age=3600"))
            let token = try #require(setCookie.split(separator: ";").first?.split(separator: "=", maxSplits: 1).last)
            let cookie: HTTPFields = [.cookie: "\(AccessControl.cookieName)=\(token)"]
            let image = try await client.execute(uri: "/iiif/3/staff%2Fimg.png/info.json", method: .get, headers: cookie) { $0.status }
            #expect(image == .ok)

            // The token service: to the server's own origin, a probe token that probes but opens nothing.
            let page = try await client.execute(uri: "/auth/token?messageId=m1&origin=http://localhost", method: .get, headers: cookie) { $0 }
            let script = String(buffer: page.body)
            #expect(script.contains("\"type\":\"AuthAccessToken2\"") && script.contains("\"messageId\":\"m1\""))
            #expect(script.contains(", \"http://localhost\");"))
            let probeToken = try #require(script.firstMatch(of: /"accessToken":"([^"]+)"/)?.1)
            let bearer: HTTPFields = [.authorization: "Bearer \(probeToken)"]
            let probe = try await client.execute(uri: "/auth/probe/staff%2Fimg.png", method: .get, headers: bearer) { String(buffer: $0.body) }
            #expect(probe.contains("\"status\":200"))
            let withBearer = try await client.execute(uri: "/iiif/3/staff%2Fimg.png/info.json", method: .get, headers: bearer) { $0.status }
            #expect(withBearer == .unauthorized)
            // Another origin gets an error, never a token; no cookie: missingAspect; no messageId: invalidRequest.
            for (query, headers, profile) in [
                ("messageId=m2&origin=https://evil.example", cookie, "invalidOrigin"), ("messageId=m3&origin=http://localhost", [:], "missingAspect"),
                ("origin=http://localhost", cookie, "invalidRequest"),
            ] as [(String, HTTPFields, String)] {
                let answer = try await client.execute(uri: "/auth/token?" + query, method: .get, headers: headers) { String(buffer: $0.body) }
                #expect(answer.contains("\"profile\":\"\(profile)\""), "\(query)")
                #expect(!answer.contains("accessToken"))
            }

            // Wrong passwords, then the limit: even the right password is refused for a while.
            for _ in 0..<5 {
                let wrong = try await client.execute(
                    uri: "/auth/login", method: .post, headers: formType, body: ByteBuffer(string: "username=alice&password=guess")
                ) { $0 }
                #expect(wrong.status == .unauthorized)
                #expect(wrong.headers[.setCookie] == nil)
            }
            let limited = try await client.execute(
                uri: "/auth/login", method: .post, headers: formType, body: ByteBuffer(string: "username=alice&password=alice%27s+password")
            ) { $0 }
            #expect(limited.status == .tooManyRequests)
            #expect(limited.headers[.setCookie] == nil)

            let logout = try await client.execute(uri: "/auth/logout", method: .get, headers: cookie) { $0 }
            #expect(logout.headers[.setCookie]?.hasPrefix("\(AccessControl.cookieName)=; Path=/; Max-Age=0") == true)
        }
    }

    /// The external check (nginx's `auth_request`): allowed with its groups, denied, down (503,
    /// never the image), and too slow (503).
    @Test func theExternalCheckDecidesAndFailsClosed() async throws {
        let router = Router()
        router.get("check") { request, _ -> Response in
            switch request.headers[.authorization] {
            case "Bearer staff": return Response(status: .noContent, headers: [HTTPField.Name("X-Tessera-Groups")!: "other, staff"])
            case "Bearer nobody": return Response(status: .noContent)
            case "Bearer slow":
                // Far beyond its deadline below; the others get a deadline no loaded machine misses.
                try await Task.sleep(for: .seconds(10))
                return Response(status: .noContent)
            case "Bearer broken": return Response(status: .internalServerError)
            default: return Response(status: .forbidden)
            }
        }
        try await Application(router: router).test(.live) { checker in
            let port = try #require(checker.port)
            for (authorize, authorization, expected) in [
                ("http://127.0.0.1:\(port)/check", "Bearer staff", HTTPResponse.Status.ok),
                ("http://127.0.0.1:\(port)/check", "Bearer nobody", .forbidden),
                ("http://127.0.0.1:\(port)/check", "Bearer denied", .unauthorized),
                ("http://127.0.0.1:\(port)/check", "Bearer slow", .serviceUnavailable),
                ("http://127.0.0.1:\(port)/check", "Bearer broken", .serviceUnavailable),
                ("http://127.0.0.1:1/check", "Bearer staff", .serviceUnavailable),
            ] {
                // AsyncHTTPClient retries a refused connection until the deadline, so port 1 waits it out too.
                let deadline = authorization == "Bearer slow" || authorize.contains(":1/") ? 1 : 30
                let json = Self.policyJSON.replacing(
                    "\"default\": \"public\",", with: "\"default\": \"public\", \"authorize\": \"\(authorize)\", \"authorizeSeconds\": \(deadline),")
                let (sandbox, access) = try Self.setUp(json)
                defer { sandbox.cleanUp() }
                let server = try sandbox.server { $0.access = access }
                try await server.test { client in
                    let answer = try await client.execute(
                        uri: "/iiif/3/staff%2Fimg.png/info.json", method: .get, headers: [.authorization: authorization]
                    ) { $0 }
                    // Denied by the check: "denied" is an anonymous request here (401); "nobody" is a user outside the group (403).
                    #expect(answer.status == expected, "\(authorization) at \(authorize)")
                    #expect(!String(buffer: answer.body).contains("127.0.0.1"))
                    // Public images never ask the check.
                    let open = try await client.execute(
                        uri: "/iiif/3/public%2Fimg.png/info.json", method: .get, headers: [.authorization: authorization]
                    ) { $0.status }
                    #expect(open == .ok)
                }
            }
        }
    }

    /// A trim job exports from a video only its starter's grant reached; its status and clip are
    /// asked of access control again on every request, so passing its id on passes nothing on.
    @Test func trimJobsAreCheckedOnEveryRequest() async throws {
        let (sandbox, access) = try Self.setUp()
        defer { sandbox.cleanUp() }
        let server = try sandbox.server { $0.access = access }
        let alice = try Self.request("", .rightUser, access: access).headers
        let bob = try Self.request("", .wrongUser, access: access).headers
        try await server.test { client in
            let order = ByteBuffer(string: #"{"from": 0, "to": 0.5}"#)
            let refused = try await client.execute(uri: "/video/staff%2Fclip.mp4/trim", method: .post, headers: bob, body: order) { $0.status }
            #expect(refused == .forbidden)
            let started = try await client.execute(uri: "/video/staff%2Fclip.mp4/trim", method: .post, headers: alice, body: order) { $0 }
            #expect(started.status == .accepted)
            let job = try #require(started.headers[.location])
            for (headers, expected) in [(HTTPFields(), HTTPResponse.Status.unauthorized), (bob, .forbidden), (alice, .ok)] {
                let status = try await client.execute(uri: job, method: .get, headers: headers) { $0.status }
                #expect(status == expected)
            }
            try await poll { try await client.execute(uri: job, method: .get, headers: alice) { String(buffer: $0.body).contains("\"done\"") } }
            for (headers, expected) in [(HTTPFields(), HTTPResponse.Status.unauthorized), (bob, .forbidden), (alice, .ok)] {
                let status = try await client.execute(uri: job + "/result", method: .get, headers: headers) { $0.status }
                #expect(status == expected)
            }
        }
    }

    /// A gray, watermarked substitute: every way to the image answers the unauthorised with gray,
    /// marked pixels (regions, tiles, Deep Zoom), colour is refused, and the authorised get the
    /// image as it is.
    @Test func markedSubstitutesAreGrayAndWatermarkedEverywhere() async throws {
        let marked = Self.policyJSON.replacing(#""maxSize": 400}"#, with: #""maxSize": 400, "grayOnly": true, "watermark": "Preview"}"#)
        let plain = Self.policyJSON.replacing(#""maxSize": 400}"#, with: #""maxSize": 400, "grayOnly": true}"#)
        var answers: [String: [String: PixelBuffer]] = [:]
        let uris = [
            "/iiif/3/previews%2Fimg.png/full/max/0/default.jpg", "/iiif/3/previews%2Fimg.png/0,0,1024,1000/256,/0/default.png",
            "/dzi/previews%2Fimg.png_files/8/0_0.jpeg",
        ]
        for (name, json) in [("marked", marked), ("plain", plain)] {
            let (sandbox, access) = try Self.setUp(json)
            defer { sandbox.cleanUp() }
            let server = try sandbox.server { $0.access = access }
            let alice = try Self.request("", .rightUser, access: access).headers
            answers[name] = try await server.makeApplication().test(.router) { client in
                var seen: [String: PixelBuffer] = [:]
                for uri in uris {
                    let anonymous = try await client.execute(uri: uri, method: .get) { $0 }
                    #expect(anonymous.status == .ok, "\(uri)")
                    let pixels = try decodePixels(anonymous.body)
                    #expect(pixels.format == .gray8, "\(uri)")
                    seen[uri] = pixels
                    let whole = try await client.execute(uri: uri, method: .get, headers: alice) { $0 }
                    #expect(try decodePixels(whole.body).format == .rgb8, "\(uri)")
                }
                let colour = try await client.execute(uri: "/iiif/3/previews%2Fimg.png/full/max/0/color.jpg", method: .get) { $0.status }
                #expect(colour == .unauthorized)
                let info = try await client.execute(uri: "/iiif/3/previews%2Fimg.png/info.json", method: .get) { String(buffer: $0.body) }
                #expect(info.contains(#""extraQualities": ["gray", "bitonal"]"#))
                return seen
            }
        }
        // The watermark changed each answer: white text at 40 % over the pattern.
        for uri in uris {
            let (a, b) = (try #require(answers["marked"]?[uri]), try #require(answers["plain"]?[uri]))
            #expect(a.size == b.size)
            let changed = zip(a.bytes, b.bytes).filter { abs(Int($0) - Int($1)) > 20 }.count
            #expect(changed > a.bytes.count / 50, "\(uri): \(changed) of \(a.bytes.count) samples changed")
        }
    }

    /// Hostile files (a TIFF whose directory lies past its end, whose libtiff message names the
    /// file; truncated and random JPEGs; a PNG whose Exif claims 688 MB; a video that claims 14 M
    /// samples) through every route, public and restricted, anonymous and authorised: each answer
    /// names no filesystem path, and the server goes on.
    @Test func hostileFilesNameNoPathOnAnyRoute() async throws {
        let (sandbox, access) = try Self.setUp()
        defer { sandbox.cleanUp() }
        try Data([0x49, 0x49, 0x2A, 0x00, 0x00, 0xFF, 0xFF, 0x0F] + [UInt8](repeating: 0, count: 100))
            .write(to: URL(fileURLWithPath: sandbox.root + "/public/seek-past-end.tif"))
        for (from, to) in [
            ("broken-truncated.jpg", "broken-truncated.jpg"), ("broken-random.jpg", "broken-random.jpg"),
            ("fuzz/png-exif-claims-688mb.png", "exif.png"), ("fuzz/video-trun-claims-14m-samples.mp4", "trun.mp4"),
        ] {
            try FileManager.default.copyItem(atPath: ServerSandbox.fixtures + "/" + from, toPath: sandbox.root + "/public/" + to)
        }
        for folder in ["staff", "previews"] {
            for name in ["seek-past-end.tif", "broken-random.jpg", "trun.mp4"] {
                try FileManager.default.copyItem(atPath: sandbox.root + "/public/" + name, toPath: sandbox.root + "/\(folder)/" + name)
            }
        }
        let server = try sandbox.server { $0.access = access }
        let alice = try Self.request("", .rightUser, access: access).headers
        try await server.test { client in
            for folder in ["public", "staff", "previews"] {
                for name in ["seek-past-end.tif", "broken-truncated.jpg", "broken-random.jpg", "exif.png", "trun.mp4"] {
                    let id = "\(folder)%2F\(name)"
                    for uri in [
                        "/iiif/3/\(id)/info.json", "/iiif/3/\(id)/full/max/0/default.jpg", "/iiif/3/\(id)/0,0,64,64/64,/0/default.png",
                        "/dzi/\(id).dzi", "/dzi/\(id)_files/0/0_0.jpeg", "/files/\(id)", "/presentation/3/\(id)/manifest",
                        "/video/\(id)/info.json", "/video/\(id)/sprite.jpg?frames=2&height=32", "/auth/probe/\(id)",
                        "/api/assets?dir=\(folder)",
                    ] {
                        for headers in [HTTPFields(), alice] {
                            let response = try await client.execute(uri: uri, method: .get, headers: headers) { $0 }
                            let body = String(buffer: response.body)
                            #expect(!body.contains(sandbox.base) && !body.contains("/tmp/"), "\(uri): \(body.prefix(200))")
                            if response.status.code >= 400, response.headers[.contentType]?.hasPrefix("text/plain") == true {
                                #expect(body.split(separator: "\n").count <= 1, "\(uri): \(body.prefix(200))")
                            }
                        }
                    }
                }
            }
            let health = try await client.execute(uri: "/health", method: .get) { $0.status }
            #expect(health == .ok)
        }
    }

    /// A viewer on an origin the policy lists gets tokens and credentialed CORS (its own origin
    /// named, credentials allowed); any other origin gets `*` and no token.
    @Test func aTrustedViewerOnAnotherOriginGetsTokensAndCredentialedCORS() async throws {
        let json = Self.policyJSON.replacing(
            "\"default\": \"public\",", with: "\"default\": \"public\", \"tokenOrigins\": [\"https://viewer.example\"],")
        let (sandbox, access) = try Self.setUp(json)
        defer { sandbox.cleanUp() }
        let server = try sandbox.server { $0.access = access }
        let cookie = try Self.request("", .rightUser, access: access).headers
        try await server.test { client in
            var alice = cookie
            alice[.origin] = "https://viewer.example"
            let trusted = try await client.execute(uri: "/iiif/3/staff%2Fimg.png/info.json", method: .get, headers: alice) { $0 }
            #expect(trusted.status == .ok)
            #expect(trusted.headers[.accessControlAllowOrigin] == "https://viewer.example")
            #expect(trusted.headers[.accessControlAllowCredentials] == "true")
            #expect(trusted.headers[values: .vary].contains("Origin"))
            let token = try await client.execute(
                uri: "/auth/token?messageId=m&origin=https://viewer.example", method: .get, headers: alice
            ) { String(buffer: $0.body) }
            #expect(token.contains("AuthAccessToken2") && token.contains(", \"https://viewer.example\");"))
            alice[.origin] = "https://elsewhere.example"
            let other = try await client.execute(uri: "/iiif/3/staff%2Fimg.png/info.json", method: .get, headers: alice) { $0 }
            #expect(other.headers[.accessControlAllowOrigin] == "*")
            #expect(other.headers[.accessControlAllowCredentials] == nil)
        }
    }

    /// Passwords, cookies, tokens and signatures never reach the server's logs (any level), nor
    /// do query strings; a server error is logged by path only.
    @Test func credentialsNeverReachTheLogs() async throws {
        let json = Self.policyJSON.replacing(
            "\"default\": \"public\",", with: "\"default\": \"public\", \"authorize\": \"http://127.0.0.1:1/check\",")
        let (sandbox, access) = try Self.setUp(json)
        defer { sandbox.cleanUp() }
        let server = try sandbox.server { $0.access = access }
        let lines = LogLines()
        var logger = Logger(label: "test") { _ in lines }
        logger.logLevel = .trace
        let alice = try Self.request("", .rightUser, access: access).headers
        let cookie = try #require(alice[.cookie])
        let signed = try Self.request("/iiif/3/staff%2Fimg.png/info.json", .validSignature, access: access).uri
        let signature = String(signed[signed.firstRange(of: "signature=")!.upperBound...])
        try await server.makeApplication(logger: logger).test(.router) { client in
            _ = try await client.execute(uri: "/iiif/3/staff%2Fimg.png/info.json", method: .get, headers: alice)
            _ = try await client.execute(uri: signed, method: .get)
            _ = try await client.execute(uri: "/auth/probe/staff%2Fimg.png", method: .get, headers: [.authorization: "Bearer secret-bearer-token"])
            // The external check is down: a 503, logged.
            let down = try await client.execute(
                uri: "/iiif/3/staff%2Fimg.png/info.json", method: .get, headers: [.authorization: "Bearer secret-bearer-token"]
            ) { $0.status }
            #expect(down == .serviceUnavailable)
            _ = try await client.execute(
                uri: "/auth/login", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "username=alice&password=hunter2-secret-password"))
        }
        let logged = lines.text
        #expect(logged.contains("503"), "the failure was logged")
        for secret in [
            String(cookie.split(separator: "=", maxSplits: 1)[1]), signature, "secret-bearer-token", "hunter2-secret-password", "expires=",
        ] {
            #expect(!logged.contains(secret), "the log holds \(secret)")
        }
    }
}

/// A log handler that keeps every message and its metadata as text.
final class LogLines: LogHandler, @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let all = metadata.merging(event.metadata ?? [:]) { $1 }
        lock.withLock { lines.append("\(event.level) \(event.message) \(all) \(event.source)") }
    }

    var text: String { lock.withLock { lines.joined(separator: "\n") } }
}
