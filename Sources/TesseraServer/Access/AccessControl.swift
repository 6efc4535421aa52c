import FoundationEssentials
import HTTPTypes
import Hummingbird
import Synchronization
import TesseraCore
import TesseraIIIF

/// The one place that decides what a request may see of an image (`grant(forPath:request:probing:)`), from
/// an ``AccessPolicy``, the signing keys, the users file and the external check. Every route that
/// names an identifier asks it before looking the identifier up, so a request that may not see an
/// image cannot learn whether it exists either.
///
/// Credentials, in order: a signed URL (it grants exactly its request), the access cookie
/// ``cookieName`` (set by the login page), and then the external check with the request's
/// `Cookie` and `Authorization` headers. A bad or expired token is as no token (the request is
/// anonymous); a bad signature is 403.
public final class AccessControl: Sendable {
    /// What one request may see of one image.
    public enum Grant: Sendable, Hashable {
        /// Everything, as anyone: a public image. Answers are public and may be shared.
        case open
        /// Everything, for this requester only: answers are `private` and vary by cookie.
        case personal
        /// The substitute only: answers are the same for every unauthorised requester (public),
        /// and vary by cookie (an authorised one gets more).
        case substitute(AccessPolicy.Substitute)

        /// The stricter of two grants (for an identifier matched under two names).
        func narrowed(to other: Grant) -> Grant {
            switch (self, other) {
            case (.substitute(let a), .substitute(let b)): .substitute(a.maxSize <= b.maxSize ? a : b)
            case (.substitute, _): self
            case (_, .substitute): other
            case (.personal, _), (_, .personal): .personal
            default: .open
            }
        }
    }

    /// The policy it applies.
    public let policy: AccessPolicy
    let keys: SigningKeys
    let users: UserFile
    let external: ExternalAuthorizer?
    let failedLogins = LoginThrottle()
    /// Tokens already verified, by their text: a client sends the same cookie with every tile, and
    /// checking its signature again each time (base64 and an HMAC) cost warm tiles 40% of their
    /// rate. An entry is made only after a full verification and its expiry is checked at each
    /// use; at most 10,000 are kept.
    private let verified = Mutex(LRUCache<String, AccessToken>(costLimit: 10_000))

    /// The access cookie's name.
    public static let cookieName = "tessera_access"

    /// Access control by `policy`, with the files it names read now.
    ///
    /// - Parameter policy: the rules, and the users and keys files they name.
    /// - Throws: ``AccessPolicyError`` for a users or keys file that cannot be read or is malformed.
    public convenience init(policy: AccessPolicy) throws {
        let keys = try policy.signingKeysFile.map(SigningKeys.init(contentsOf:)) ?? SigningKeys.ephemeral()
        let users = try policy.usersFile.map(UserFile.init(contentsOf:)) ?? UserFile()
        self.init(policy: policy, keys: keys, users: users)
    }

    /// Access control by `policy` with these keys and users (tests, and apps that keep them elsewhere).
    ///
    /// - Parameters:
    ///   - policy: the rules.
    ///   - keys: what signs and verifies URLs and tokens.
    ///   - users: who may log in at Tessera.
    public init(policy: AccessPolicy, keys: SigningKeys, users: UserFile) {
        self.policy = policy
        self.keys = keys
        self.users = users
        external = policy.authorizeURL.map { ExternalAuthorizer(url: $0, timeout: policy.authorizeTimeout, freshness: policy.authorizeFreshness) }
    }

    /// Whether everyone sees `identifier` whole, judged from the policy alone: what the event
    /// loop's shortcut for stored tiles asks before answering without the router.
    func isOpen(_ relativePath: String) -> Bool { policy.rule(for: relativePath).tier == .public }

    /// What `request` may see of the image at `relativePath` (decoded), before it is looked up.
    ///
    /// - Throws: ``AccessDenied`` (401 without credentials, 403 with credentials that do not
    ///   suffice or a bad signature) when it may see nothing; ``ServerError`` (503) when the
    ///   external check does not answer. `probing` when it is a
    /// probe, whose requester is named by a probe token as well (``prober(of:)``) and which
    /// carries no signature.
    func grant(forPath relativePath: String, request: Request, probing: Bool = false) async throws -> Grant {
        let rule = policy.rule(for: relativePath)
        guard rule.tier != .public else { return .open }
        if !probing {
            switch URLSignature.verify(request.uri.description, keys: keys, now: Self.now) {
            case .valid: return .personal
            case .invalid(let why): throw AccessDenied(.forbidden, "signed URL refused: " + why)
            case .unsigned: break
            }
        }
        let who = try await probing ? prober(of: request) : principal(of: request)
        if let who, rule.groups.isEmpty || !Set(rule.groups).isDisjoint(with: who.groups) { return .personal }
        if let substitute = rule.substitute { return .substitute(substitute) }
        throw who == nil ? AccessDenied(.unauthorized, "authorization required") : AccessDenied(.forbidden, "not authorised for this image")
    }

    /// What seeing the image under `names` whole asks of a requester: for each name that is not
    /// public, its rule's groups (empty: any authorised user). Made once per stored-tile source.
    func requiredGroups(of names: [String]) -> [[String]] {
        names.map { policy.rule(for: $0) }.filter { $0.tier != .public }.map(\.groups)
    }

    /// Whether the access cookie among `headers` meets `requirements` (``requiredGroups(of:)``),
    /// decided at once (no external check, no signature): the event loop's question, whose "no"
    /// sends the request to the router, where everything is asked.
    func cookieMeets(_ requirements: [[String]], headers: HTTPFields) -> Bool {
        let cookies = headers[values: .cookie]
        guard !cookies.isEmpty else { return false }
        // Keyed by the whole header: a client sends the same one with every tile, so it is parsed once.
        let whole = cookies.count == 1 ? cookies[0] : cookies.joined(separator: "; ")
        let token: AccessToken
        if let known = verified.withLock({ $0.value(for: "cookie " + whole) }), Self.now < known.expires {
            token = known
        } else {
            guard let value = Self.cookie(Self.cookieName, in: cookies), let found = self.token(value, kind: .access) else { return false }
            verified.withLock { _ = $0.insert(found, for: "cookie " + whole, cost: 1) }
            token = found
        }
        return requirements.allSatisfy { groups in groups.isEmpty || groups.contains(where: token.groups.contains) }
    }

    /// The unexpired token of `kind` that `text` is, verified once (``verified``).
    func token(_ text: some StringProtocol, kind: AccessToken.Kind) -> AccessToken? {
        let key = kind.rawValue + " " + text
        let now = Self.now
        if let known = verified.withLock({ $0.value(for: key) }) { return now < known.expires ? known : nil }
        guard let token = AccessToken(text, kind: kind, keys: keys, now: now) else { return nil }
        verified.withLock { _ = $0.insert(token, for: key, cost: 1) }
        return token
    }

    /// Who `request` comes from: the user its access cookie names, else the one the external
    /// check answers for its headers; nil for nobody.
    func principal(of request: Request) async throws -> AccessToken? {
        let cookies = request.headers[values: .cookie]
        if let value = Self.cookie(Self.cookieName, in: cookies), let token = token(value, kind: .access) { return token }
        guard let external else { return nil }
        let cookie = cookies.isEmpty ? nil : cookies.joined(separator: "; ")
        guard case .allowed(let user, let groups)? = try await external.answer(cookie: cookie, authorization: request.headers[.authorization])
        else { return nil }
        return AccessToken(kind: .access, user: user, groups: groups, expires: Self.now + 10)
    }

    /// What is wrong with `request`'s access cookie when it names nobody, in the token service's
    /// words (``CookieState``).
    func cookieState(of request: Request) -> CookieState {
        guard let value = Self.cookie(Self.cookieName, in: request.headers[values: .cookie]) else { return .missing }
        // Signed by one of the keys, and so only too old (a token is never valid at time 0 otherwise).
        return AccessToken(value, kind: .access, keys: keys, now: 0) != nil ? .expired : .invalid
    }

    /// Why a request's cookie names nobody: the token service's `missingAspect`,
    /// `expiredAspect` and `invalidAspect`.
    enum CookieState: String { case missing, expired, invalid }

    /// Who the probe token in `request`'s `Authorization: Bearer` header names, else who its
    /// cookie or the external check names (a probe from the server's own pages sends the cookie).
    func prober(of request: Request) async throws -> AccessToken? {
        if let header = request.headers[.authorization], header.hasPrefix("Bearer "),
            let token = token(header.dropFirst(7), kind: .probe)
        {
            return token
        }
        return try await principal(of: request)
    }

    /// The headers an answer made under `grant` carries: authorised answers are private (or not
    /// stored at all, by the policy) and every answer about a non-public image varies by cookie.
    func cacheHeaders(for grant: Grant, maxAge: Int) -> HTTPFields {
        switch grant {
        case .open: [:]
        case .personal:
            [
                .cacheControl: policy.authorisedCaching == "no-store" ? "no-store" : "private, max-age=\(maxAge)",
                .vary: "Cookie, Authorization",
            ]
        case .substitute: [.vary: "Cookie, Authorization"]
        }
    }

    /// The value of the cookie `name` among `Cookie` header values.
    static func cookie(_ name: String, in headers: [String]) -> Substring? {
        for header in headers {
            for pair in header.split(separator: ";") {
                let trimmed = pair.drop { $0 == " " }
                if trimmed.hasPrefix(name + "=") { return trimmed.dropFirst(name.count + 1) }
            }
        }
        return nil
    }

    /// Seconds since 1970.
    static var now: Int { Int(Date.now.timeIntervalSince1970) }
}

/// A request that may not see what it asked for: 401 when it carried no credentials, 403 when
/// they do not suffice or a signature is bad. The body is one line naming no image or path.
struct AccessDenied: HTTPResponseError {
    let status: HTTPResponse.Status
    let message: String

    init(_ status: HTTPResponse.Status, _ message: String) {
        self.status = status
        self.message = message
    }

    /// A request for colour from a gray-only substitute.
    static let colour = AccessDenied(.unauthorized, "authorization required for colour")

    /// A request for more of an image than its substitute gives.
    static func beyond(_ substitute: AccessPolicy.Substitute) -> AccessDenied {
        AccessDenied(.unauthorized, "authorization required for more than \(substitute.maxSize) pixels")
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        response(head: request.method == .head)
    }

    /// The refusal: never stored (the same URL may be answered once its requester has logged in).
    func response(head: Bool) -> Response {
        Response(
            status: status, headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: head ? ByteBuffer() : ByteBuffer(string: message + "\n")))
    }
}

extension AccessControl.Grant {
    /// What keys a cached answer made under this grant apart: a substitute's answers are other
    /// bytes (`max` is smaller, info.json promises less) than the whole image's, which everyone
    /// who may see it whole shares.
    var cacheKeyPrefix: String {
        guard case .substitute(let substitute) = self else { return "" }
        return "substitute \(substitute.maxSize) \(substitute.grayOnly ? "gray" : "")\(substitute.watermark.map { " " + $0 } ?? "")|"
    }

    /// The substitute whose images are other pixels than the whole image's, if this is one.
    var marks: AccessPolicy.Substitute? {
        if case .substitute(let substitute) = self, substitute.isMarked { return substitute }
        return nil
    }
}

extension AccessControl {
    /// Adds ``cacheHeaders(for:maxAge:)`` to `response` (a `Vary` already there is kept).
    func apply(_ grant: Grant, to response: inout Response, maxAge: Int) {
        for field in cacheHeaders(for: grant, maxAge: maxAge) {
            if field.name == .vary, let vary = response.headers[.vary] {
                response.headers[.vary] = vary + ", " + field.value
            } else {
                response.headers[field.name] = field.value
            }
        }
    }
}
