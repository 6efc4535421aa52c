import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization
import TesseraCore

/// Per-client limits (`tessera serve --rate-limit`, `--pixel-rate`): a token bucket of requests
/// per client, and a budget of decoded pixels per client per second, so one client asking for
/// expensive unaligned regions cannot starve the others while cheap stored tiles cost it nothing
/// but a request. A client is its address, or the user its access cookie names; behind a proxy,
/// the address `X-Forwarded-For` gives, but only when the peer is one of ``trustedProxies``
/// (anyone else could write any address there).
public final class ClientLimits: Sendable {
    /// Requests a client may make per second, sustained; a second's worth may come at once.
    public let requestsPerSecond: Double
    /// Decoded pixels a client may cost per second, sustained (a second's worth at once); nil: unlimited.
    public let pixelsPerSecond: Double?
    /// Addresses of proxies whose `X-Forwarded-For` is believed.
    public let trustedProxies: Set<String>

    private struct Bucket {
        var requests: Double
        var pixels: Double
        var updated: ContinuousClock.Instant
    }

    /// The buckets of clients seen lately; the least recently seen are forgotten beyond 100,000
    /// (a forgotten client starts again with full buckets).
    private let buckets = Mutex(LRUCache<String, Bucket>(costLimit: 100_000))

    /// The client and limits of the request a task serves, for charging decoded pixels where they
    /// are decoded (``charge(pixels:)``).
    @TaskLocal static var current: (limits: ClientLimits, client: String)?

    /// Limits of `requestsPerSecond` requests and `pixelsPerSecond` decoded pixels per client.
    ///
    /// - Parameters:
    ///   - requestsPerSecond: sustained requests per second per client (more than 0).
    ///   - pixelsPerSecond: sustained decoded pixels per second per client, or nil.
    ///   - trustedProxies: the addresses (as `127.0.0.1` or `::1`) whose `X-Forwarded-For` is believed.
    public init(requestsPerSecond: Double, pixelsPerSecond: Double? = nil, trustedProxies: Set<String> = []) {
        self.requestsPerSecond = max(requestsPerSecond, 0.001)
        self.pixelsPerSecond = pixelsPerSecond
        self.trustedProxies = trustedProxies
    }

    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    /// Who a request comes from: the peer's address, or, when the peer is a trusted proxy, the
    /// last address in `X-Forwarded-For` that is not one (the one the first trusted proxy saw).
    func client(peer: SocketAddress?, forwardedFor: [String]) -> String {
        guard let address = peer?.ipAddress else { return "unknown" }
        guard trustedProxies.contains(address) else { return address }
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }.map { String($0.trimmingPrefix(while: \.isWhitespace)).trimmingSuffix() }
        return hops.last { !trustedProxies.contains($0) && !$0.isEmpty } ?? address
    }

    /// Takes a request from `client`'s bucket: nil when it may go on, else the seconds until it
    /// may (for `Retry-After`). A client in debt for decoded pixels waits until it is out of it.
    func admit(_ client: String) -> Int? {
        buckets.withLock { buckets in
            var bucket = refilled(buckets.value(for: client))
            defer { _ = buckets.insert(bucket, for: client, cost: 1) }
            if bucket.requests < 1 { return max(1, Int(((1 - bucket.requests) / requestsPerSecond).rounded(.up))) }
            if let pixelsPerSecond, bucket.pixels < 0 { return max(1, Int((-bucket.pixels / pixelsPerSecond).rounded(.up))) }
            bucket.requests -= 1
            return nil
        }
    }

    /// Charges the client of the current task (``current``) `pixels` decoded pixels; it may go into
    /// debt (the work is done), and is refused until it is out of it.
    static func charge(pixels: Int) {
        guard let (limits, client) = current, limits.pixelsPerSecond != nil else { return }
        limits.buckets.withLock { buckets in
            var bucket = limits.refilled(buckets.value(for: client))
            bucket.pixels -= Double(pixels)
            _ = buckets.insert(bucket, for: client, cost: 1)
        }
    }

    /// `bucket` (a full one when nil) with what has accrued since it was last seen, up to a second's worth.
    private func refilled(_ bucket: Bucket?) -> Bucket {
        let now = ContinuousClock.now
        guard var bucket else { return Bucket(requests: max(requestsPerSecond, 1), pixels: pixelsPerSecond ?? 0, updated: now) }
        let elapsed = Double((now - bucket.updated).components.attoseconds) / 1e18 + Double((now - bucket.updated).components.seconds)
        bucket.requests = min(max(requestsPerSecond, 1), bucket.requests + elapsed * requestsPerSecond)
        if let pixelsPerSecond { bucket.pixels = min(pixelsPerSecond, bucket.pixels + elapsed * pixelsPerSecond) }
        bucket.updated = now
        return bucket
    }

    /// The 429 a refused request gets.
    static func refusal(retryAfter seconds: Int, head: Bool) -> (HTTPResponse, ByteBuffer) {
        var response = HTTPResponse(status: .tooManyRequests)
        response.headerFields = [.contentType: "text/plain; charset=utf-8", .retryAfter: String(seconds), .cacheControl: "no-store"]
        return (response, head ? ByteBuffer() : ByteBuffer(string: "too many requests; try again in \(seconds) s\n"))
    }
}

extension String {
    fileprivate func trimmingSuffix() -> String {
        var text = self[...]
        while text.last?.isWhitespace == true { text = text.dropLast() }
        return String(text)
    }
}

extension ClientLimits {
    /// The key a request is limited under: its user when its access cookie is valid or the
    /// external check has lately allowed its credentials, else its client's address
    /// (``client(peer:forwardedFor:)``).
    func key(_ request: Request, context: some RequestContext, access: AccessControl?) -> String {
        let cookies = request.headers[values: .cookie]
        if let access, let value = AccessControl.cookie(AccessControl.cookieName, in: cookies), let token = access.token(value, kind: .access) {
            return "user " + token.user
        }
        if let external = access?.external,
            let user = external.knownUser(
                cookie: cookies.isEmpty ? nil : cookies.joined(separator: "; "), authorization: request.headers[.authorization])
        {
            return "user " + user
        }
        return client(peer: (context as? any RemoteAddressRequestContext)?.remoteAddress, forwardedFor: request.headers[values: Self.forwardedFor])
    }
}
