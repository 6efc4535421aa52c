import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@testable import TesseraServer

/// Per-client limits against a live server (the peer is 127.0.0.1; clients are told apart by
/// `X-Forwarded-For` when 127.0.0.1 is a trusted proxy). Rates are set so low (a request per
/// thousand seconds) that no refill can happen during a test: what is refused does not depend on
/// how fast the machine is.
@Suite("Per-client limits")
struct ClientLimitTests {
    static func from(_ address: String) -> HTTPFields { [HTTPField.Name("X-Forwarded-For")!: address] }

    @Test func aBurstIsRefusedWhileOtherClientsAreServed() async throws {
        let sandbox = try ServerSandbox()
        defer { sandbox.cleanUp() }
        let server = try sandbox.server {
            $0.clientLimits = ClientLimits(requestsPerSecond: 0.001, trustedProxies: ["127.0.0.1"])
        }
        try await server.makeApplication().test(.live) { client in
            let port = try #require(client.port)
            let uri = "/iiif/3/photo-400x300.png/info.json"
            let first = try await ImmediateResponseTests.get(uri, port: port, headers: Self.from("10.0.0.1"))
            #expect(first.status == .ok)
            let refused = try await ImmediateResponseTests.get(uri, port: port, headers: Self.from("10.0.0.1"))
            #expect(refused.status == .tooManyRequests)
            #expect(Int(refused.headers[.retryAfter] ?? "") ?? 0 >= 1)
            // Another client, and the same client behind a second proxy hop, are apart.
            let other = try await ImmediateResponseTests.get(uri, port: port, headers: Self.from("10.0.0.2"))
            #expect(other.status == .ok)
            let hop = try await ImmediateResponseTests.get(uri, port: port, headers: Self.from("10.0.0.3, 127.0.0.1"))
            #expect(hop.status == .ok)
            let hopAgain = try await ImmediateResponseTests.get(uri, port: port, headers: Self.from("10.0.0.9, 10.0.0.3"))
            #expect(hopAgain.status == .tooManyRequests)
        }
    }

    @Test func forwardedForIsIgnoredUnlessThePeerIsATrustedProxy() async throws {
        let sandbox = try ServerSandbox()
        defer { sandbox.cleanUp() }
        let server = try sandbox.server { $0.clientLimits = ClientLimits(requestsPerSecond: 0.001) }
        try await server.makeApplication().test(.live) { client in
            let port = try #require(client.port)
            let uri = "/iiif/3/photo-400x300.png/info.json"
            #expect(try await ImmediateResponseTests.get(uri, port: port, headers: Self.from("10.0.0.1")).status == .ok)
            // Spoofed: a new address in the header is still the same peer.
            for address in ["10.0.0.2", "10.0.0.3"] {
                #expect(try await ImmediateResponseTests.get(uri, port: port, headers: Self.from(address)).status == .tooManyRequests)
            }
        }
    }

    /// Warm stored tiles, answered on the event loop, still count as requests; and a client over
    /// its limit is refused there too (the router answers it 429).
    @Test func theEventLoopsAnswersAreLimitedToo() async throws {
        let sandbox = try ServerSandbox()
        defer { sandbox.cleanUp() }
        let server = try sandbox.server {
            $0.smallSourcePixelLimit = 0; $0.levelPixelLimit = 0; $0.tileSize = 512
            $0.clientLimits = ClientLimits(requestsPerSecond: 0.001, trustedProxies: ["127.0.0.1"])
        }
        let uri = "/iiif/3/big.png/0,0,512,512/512,512/0/default.jpg"
        try await ImmediateResponseTests.warm(server, uri)
        await server.service.builds.finished()
        try await server.makeApplication().test(.live) { client in
            let port = try #require(client.port)
            #expect(try await ImmediateResponseTests.get(uri, port: port, headers: Self.from("10.0.0.1")).status == .ok)
            #expect(server.shortcuts.count == 1)
            #expect(try await ImmediateResponseTests.get(uri, port: port, headers: Self.from("10.0.0.1")).status == .tooManyRequests)
            #expect(try await ImmediateResponseTests.get(uri, port: port, headers: Self.from("10.0.0.2")).status == .ok)
        }
    }

    /// Decoded pixels: a client whose regions decoded more than its budget is refused until it is
    /// out of debt, whatever it asks next; stored tiles cost it nothing; other clients go on.
    @Test func expensiveRegionsSpendTheDecodedPixelBudgetStoredTilesDoNot() async throws {
        let sandbox = try ServerSandbox()
        defer { sandbox.cleanUp() }
        let server = try sandbox.server {
            $0.smallSourcePixelLimit = 0; $0.levelPixelLimit = 0; $0.tileSize = 512
            // A million requests a second, but a pixel a thousand seconds.
            $0.clientLimits = ClientLimits(requestsPerSecond: 1_000_000, pixelsPerSecond: 0.001, trustedProxies: ["127.0.0.1"])
        }
        let tile = "/iiif/3/big.png/0,0,512,512/512,512/0/default.jpg"
        try await ImmediateResponseTests.warm(server, tile)
        await server.service.builds.finished()
        try await server.makeApplication().test(.live) { client in
            let port = try #require(client.port)
            let cheap = Self.from("10.0.0.1"), costly = Self.from("10.0.0.2")
            for _ in 0..<5 { #expect(try await ImmediateResponseTests.get(tile, port: port, headers: cheap).status == .ok) }
            let region = "/iiif/3/big.png/100,100,700,500/350,/0/default.jpg"
            #expect(try await ImmediateResponseTests.get(region, port: port, headers: costly).status == .ok)
            let refused = try await ImmediateResponseTests.get(tile, port: port, headers: costly)
            #expect(refused.status == .tooManyRequests)
            #expect(try await ImmediateResponseTests.get(tile, port: port, headers: cheap).status == .ok)
        }
    }

    @Test func theClientIsTheLastUntrustedHop() {
        let limits = ClientLimits(requestsPerSecond: 1, trustedProxies: ["10.0.0.1", "10.0.0.2"])
        let proxy = try? SocketAddress(ipAddress: "10.0.0.1", port: 80)
        let stranger = try? SocketAddress(ipAddress: "192.0.2.7", port: 80)
        #expect(limits.client(peer: proxy, forwardedFor: ["198.51.100.1, 203.0.113.5, 10.0.0.2"]) == "203.0.113.5")
        #expect(limits.client(peer: proxy, forwardedFor: ["198.51.100.1", "203.0.113.9"]) == "203.0.113.9")
        #expect(limits.client(peer: proxy, forwardedFor: []) == "10.0.0.1")
        #expect(limits.client(peer: stranger, forwardedFor: ["198.51.100.1"]) == "192.0.2.7")
        #expect(limits.client(peer: nil, forwardedFor: ["198.51.100.1"]) == "unknown")
    }

    /// A logged-in user has a bucket of its own, apart from its address's: by its access cookie,
    /// and by the external check's answer once the check has allowed its credentials (its first
    /// request, before the check has answered, is its address's).
    @Test func aUserIsLimitedApartFromItsAddress() async throws {
        let router = Router()
        router.get("check") { request, _ -> Response in
            guard let name = request.headers[.authorization]?.split(separator: " ").last, name != "nobody" else {
                return Response(status: .forbidden)
            }
            return Response(status: .noContent, headers: [HTTPField.Name("X-Tessera-User")!: String(name)])
        }
        try await Application(router: router).test(.live) { checker in
            let check = "http://127.0.0.1:\(try #require(checker.port))/check"
            let json = AccessRouteTests.policyJSON.replacing(
                "\"default\": \"public\",", with: "\"default\": \"public\", \"authorize\": \"\(check)\",")
            let (sandbox, access) = try AccessRouteTests.setUp(json) {
                $0.authorizeTimeout = .seconds(600)
                $0.authorizeFreshness = .seconds(3600)  // the check's answer still known at carol's next request, however slow the machine
            }
            defer { sandbox.cleanUp() }
            let server = try sandbox.server {
                $0.access = access
                $0.clientLimits = ClientLimits(requestsPerSecond: 0.001)
            }
            let alice = try AccessRouteTests.request("", .rightUser, access: access).headers
            let bob = try AccessRouteTests.request("", .wrongUser, access: access).headers
            let carol: HTTPFields = [.authorization: "Bearer carol"]
            try await server.makeApplication().test(.live) { client in
                let port = try #require(client.port)
                func status(_ uri: String, _ headers: HTTPFields) async throws -> Int {
                    try await ImmediateResponseTests.get(uri, port: port, headers: headers).status.code
                }
                let restricted = "/iiif/3/restricted%2Fimg.png/info.json", open = "/iiif/3/public%2Fimg.png/info.json"
                // carol's first request spends the address's one request; the check then knows her.
                #expect(try await status(restricted, carol) == 200)
                #expect(try await status(open, [:]) == 429)
                #expect(try await status(restricted, carol) == 200)
                #expect(try await status(restricted, carol) == 429)
                // Users of the cookie: one request each, whatever the address has spent.
                for user in [alice, bob] {
                    #expect(try await status(open, user) == 200)
                    #expect(try await status(open, user) == 429)
                }
                // Someone the check has not answered for is its address.
                #expect(try await status(restricted, [.authorization: "Bearer dave"]) == 429)
            }
        }
    }
}
