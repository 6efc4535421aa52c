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

/// The IIIF Auth 2 services, the external check, trim jobs, marked substitutes, hostile files,
/// viewers on other origins and the logs, through the routes (the sandbox and policy of
/// ``AccessRouteTests``).
extension AccessRouteTests {
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
            // Another origin gets an error, never a token; no cookie: missingAspect; an expired or
            // forged one: expiredAspect or invalidAspect; no messageId: invalidRequest.
            let expired = try Self.request("", .expiredToken, access: access).headers
            let forged: HTTPFields = [.cookie: "\(AccessControl.cookieName)=\(token.dropLast(2))xx"]
            for (query, headers, profile) in [
                ("messageId=m2&origin=https://evil.example", cookie, "invalidOrigin"), ("messageId=m3&origin=http://localhost", [:], "missingAspect"),
                ("messageId=m4&origin=http://localhost", expired, "expiredAspect"),
                ("messageId=m5&origin=http://localhost", forged, "invalidAspect"), ("origin=http://localhost", cookie, "invalidRequest"),
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
                // AsyncHTTPClient retries a refused connection until the deadline, so port 1 waits it out
                // too. The checks that answer get the suite's deadline for a loaded machine (a 30-s one
                // was missed in CI), beyond what a policy file may set.
                let failsByTime = authorization == "Bearer slow" || authorize.contains(":1/")
                let json = Self.policyJSON.replacing("\"default\": \"public\",", with: "\"default\": \"public\", \"authorize\": \"\(authorize)\",")
                let (sandbox, access) = try Self.setUp(json) { $0.authorizeTimeout = failsByTime ? .seconds(1) : .seconds(600) }
                defer { sandbox.cleanUp() }
                let server = try sandbox.server { $0.access = access }
                try await server.test { client in
                    let answer = try await client.execute(
                        uri: "/iiif/3/staff%2Fimg.png/info.json", method: .get, headers: [.authorization: authorization]
                    ) { $0 }
                    // Denied by the check: "denied" is an anonymous request here (401); "nobody" is a user outside the group (403).
                    #expect(answer.status == expected, "\(authorization) at \(authorize): \(String(buffer: answer.body))")
                    #expect(!String(buffer: answer.body).contains("127.0.0.1"))
                    // The token service tells a viewer the check is down rather than leaving it waiting.
                    if expected == .serviceUnavailable {
                        let page = try await client.execute(
                            uri: "/auth/token?messageId=m&origin=http://localhost", method: .get, headers: [.authorization: authorization]
                        ) { String(buffer: $0.body) }
                        #expect(page.contains("\"profile\":\"unavailable\"") && !page.contains("accessToken") && !page.contains("127.0.0.1"))
                    }
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

    /// The policy, trusting a viewer at `https://viewer.example` with tokens.
    static let trustingAViewer = policyJSON.replacing(
        "\"default\": \"public\",", with: "\"default\": \"public\", \"tokenOrigins\": [\"https://viewer.example\"],")

    /// A viewer on an origin the policy lists gets tokens and credentialed CORS (its own origin
    /// named, credentials allowed); any other origin gets `*` and no token.
    @Test func aTrustedViewerOnAnotherOriginGetsTokensAndCredentialedCORS() async throws {
        let (sandbox, access) = try Self.setUp(Self.trustingAViewer)
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

    /// Every route a token or cookie may reach answers the CORS preflight a viewer on another
    /// origin sends before `Authorization: Bearer` (the Auth 2 probe's token): 204 for a trusted
    /// origin, named with credentials and `Authorization` allowed; refused (403, no credentials) for
    /// any other origin that asks for `Authorization`, which may still send the headers anyone may.
    @Test func everyRouteAnswersThePreflightOfTrustedOriginsOnly() async throws {
        let (sandbox, access) = try Self.setUp(Self.trustingAViewer)
        defer { sandbox.cleanUp() }
        let server = try sandbox.server { $0.access = access }
        try await server.test { client in
            for (name, uri) in Self.routes {
                let method = name.hasPrefix("video trim") ? "POST" : "GET"
                func preflight(_ origin: String, _ headers: String) async throws -> TestResponse {
                    let fields: HTTPFields = [
                        .origin: origin, .accessControlRequestMethod: method, .accessControlRequestHeaders: headers,
                    ]
                    return try await client.execute(uri: uri("staff"), method: .options, headers: fields) { $0 }
                }
                let trusted = try await preflight("https://viewer.example", "authorization")
                #expect(trusted.status == .noContent, "\(name)")
                #expect(trusted.headers[.accessControlAllowOrigin] == "https://viewer.example", "\(name)")
                #expect(trusted.headers[.accessControlAllowCredentials] == "true", "\(name)")
                #expect(trusted.headers[.accessControlAllowHeaders]?.contains("authorization") == true, "\(name)")
                #expect(trusted.headers[.accessControlAllowMethods]?.contains(method) == true, "\(name)")
                let other = try await preflight("https://elsewhere.example", "Authorization")
                #expect(other.status == .forbidden, "\(name)")
                #expect(other.headers[.accessControlAllowCredentials] == nil, "\(name)")
                #expect(other.headers[.accessControlAllowOrigin] != "https://elsewhere.example", "\(name)")
                let ranged = try await preflight("https://elsewhere.example", "range")
                #expect(ranged.status == .noContent, "\(name)")
                #expect(ranged.headers[.accessControlAllowOrigin] == "*", "\(name)")
                #expect(ranged.headers[.accessControlAllowHeaders] == "range", "\(name)")
            }
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
