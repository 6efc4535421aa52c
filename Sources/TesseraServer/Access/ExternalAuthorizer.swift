import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import Synchronization
import TesseraCore

/// Asks an institution's own service whether a request is authorised, as nginx's `auth_request`
/// does: a `GET` of the configured URL with the request's `Cookie` and `Authorization` headers.
/// 2xx allows (the user and groups from `X-Tessera-User` and `X-Tessera-Groups`, when sent),
/// 401 and 403 deny; anything else, or no answer within ``timeout``, is an error (503 for the
/// request, never a guess). Answers are kept for ``freshness``, keyed by a hash of the headers.
final class ExternalAuthorizer: Sendable {
    /// What the service said.
    enum Answer: Sendable, Equatable {
        case allowed(user: String, groups: [String])
        case denied
    }

    let url: String
    let timeout: Duration
    let freshness: Duration
    private let answers = Mutex(LRUCache<String, (answer: Answer, until: ContinuousClock.Instant)>(costLimit: 10_000))

    private static let client = HTTPClient(
        eventLoopGroupProvider: .singleton,
        // The per-request deadline (``timeout``) governs; these only bound what it does not cover.
        configuration: HTTPClient.Configuration(timeout: HTTPClient.Configuration.Timeout(connect: .seconds(60), read: .seconds(60))))

    init(url: String, timeout: Duration = .seconds(2), freshness: Duration = .seconds(10)) {
        self.url = url
        self.timeout = timeout
        self.freshness = freshness
    }

    /// The user a fresh allowing answer names for these headers, without asking the service: who a
    /// request comes from, for limits that must be decided at once. A user the service does not
    /// name (no `X-Tessera-User`) is told apart by the hash of its headers.
    func knownUser(cookie: String?, authorization: String?) -> String? {
        guard cookie != nil || authorization != nil, let key = Self.key(cookie: cookie, authorization: authorization),
            let known = answers.withLock({ $0.value(for: key) }), known.until > ContinuousClock.now,
            case .allowed(let user, _) = known.answer
        else { return nil }
        return user == Self.unnamed ? "external " + key : user
    }

    /// The name given to a user the service allows without naming.
    static let unnamed = "external"

    private static func key(cookie: String?, authorization: String?) -> String? {
        SHA256Digest.hex((cookie ?? "") + "\n" + (authorization ?? ""))
    }

    /// The service's answer for a request with these headers (nil when it has neither).
    ///
    /// - Throws: ``ServerError`` (network: 502 is not what a client should see; busy: 503) when the
    ///   service is down, slow or answers otherwise.
    func answer(cookie: String?, authorization: String?) async throws -> Answer? {
        guard cookie != nil || authorization != nil else { return nil }
        let key = Self.key(cookie: cookie, authorization: authorization) ?? ""
        let now = ContinuousClock.now
        if let known = answers.withLock({ $0.value(for: key) }), known.until > now { return known.answer }
        var request = HTTPClientRequest(url: url)
        if let cookie { request.headers.add(name: "Cookie", value: cookie) }
        if let authorization { request.headers.add(name: "Authorization", value: authorization) }
        let answer: Answer
        do {
            let (seconds, attoseconds) = timeout.components
            let response = try await Self.client.execute(request, timeout: .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
            switch response.status.code {
            case 200..<300:
                let user = response.headers.first(name: "X-Tessera-User").flatMap { UserName.isValid($0) ? $0 : nil } ?? Self.unnamed
                let groups = (response.headers.first(name: "X-Tessera-Groups") ?? "").split(separator: ",")
                    .map { $0.trimmingPrefix(while: \.isWhitespace) }.filter(UserName.isValid).map(String.init)
                answer = .allowed(user: user, groups: groups)
            case 401, 403: answer = .denied
            default: throw ServerError(.busy, "the authorization service failed; try again later")
            }
        } catch let error as ServerError {
            throw error
        } catch {
            throw ServerError(.busy, "the authorization service did not answer; try again later")
        }
        answers.withLock { _ = $0.insert((answer, now + freshness), for: key, cost: 1) }
        return answer
    }
}
