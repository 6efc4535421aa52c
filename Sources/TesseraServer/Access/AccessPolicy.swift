import FoundationEssentials
public import TesseraCore

/// Who may see which images, and how much of them everyone else sees: the JSON file
/// `tessera serve --access FILE` reads (docs/security.md has the whole format).
///
/// Rules match identifiers (paths relative to the root, `/`-separated) by glob; the first rule that
/// matches decides, else ``defaultRule``. Fixed for the server's lifetime.
public struct AccessPolicy: Sendable {
    /// How much of an image a request without authorisation gets.
    public enum Tier: String, Sendable, Codable {
        /// Everything, as without a policy.
        case `public`
        /// A ``Substitute`` (smaller, optionally watermarked or gray); authorised users get it all.
        case degraded
        /// Nothing, or the rule's ``Substitute`` when it names one; authorised users get it all.
        case restricted
    }

    /// What an unauthorised request gets of a degraded (or restricted) image: the image at most
    /// ``maxSize`` pixels on its longest side (any region, no finer).
    public struct Substitute: Sendable, Hashable {
        /// The longest side, in pixels, of the largest view of the whole image given.
        public var maxSize: Int
        /// Text drawn into every substitute image, or nil.
        public var watermark: String? = nil
        /// Whether the substitute is gray only (`default` is gray, `color` is refused).
        public var grayOnly = false

        /// Whether its images are other pixels than the whole image's (drawn on or made gray).
        var isMarked: Bool { watermark != nil || grayOnly }
    }

    /// One rule: the identifiers it covers, their tier, and who may see them whole.
    public struct Rule: Sendable {
        /// The glob over identifiers: `*` within a path segment, `**` across segments, `?` one character.
        public var pattern: IdentifierGlob
        /// What the unauthorised get.
        public var tier: Tier
        /// Groups whose members may see the images whole; empty: any authorised user.
        public var groups: [String]
        /// What the unauthorised get of a degraded or restricted image; nil: nothing (restricted only).
        public var substitute: Substitute?
    }

    /// The texts of the IIIF access service and of the login page.
    public struct Texts: Sendable, Hashable {
        /// The access service's `label` and the login page's title.
        public var label = "Sign in to see this image"
        /// The access service's `heading`, shown over the substitute.
        public var heading = "This image is restricted"
        /// The access service's `note`.
        public var note = "Sign in to see it at full quality."
        /// The access service's `confirmLabel`: the button that opens the login window.
        public var confirmLabel = "Sign in"
        /// The logout service's `label`.
        public var logoutLabel = "Sign out"
    }

    /// The rule for identifiers no rule matches.
    public var defaultRule: Rule
    /// The rules, first match wins.
    public var rules: [Rule]
    /// The users file (`tessera user add`), absolute; nil when no one logs in at Tessera.
    public var usersFile: String?
    /// The signing keys (`NAME SECRET` a line, the secret base64), absolute; the first signs, all
    /// verify. Nil: one random key per process (tokens do not survive a restart and are not shared
    /// among instances; signed URLs are refused).
    public var signingKeysFile: String?
    /// A URL asked, with the request's `Cookie` and `Authorization`, whether the request is
    /// authorised (2xx yes, 401/403 no), as nginx's `auth_request`; nil when none.
    public var authorizeURL: String?
    /// How long the ``authorizeURL`` service may take before the request is answered 503
    /// (`authorizeSeconds`, 0.1–60; default 2).
    public var authorizeTimeout: Duration = .seconds(2)
    /// How long an answer of the ``authorizeURL`` service is kept for the same `Cookie` and
    /// `Authorization` (10 s: a revoked session is refused within that).
    public var authorizeFreshness: Duration = .seconds(10)
    /// How long an access cookie and a probe token last.
    public var tokenLifetime: Duration = .seconds(3600)
    /// Whether the access cookie is `Secure` (set it when clients reach the server by https).
    public var secureCookie = false
    /// The access cookie's `SameSite`: `Lax` by default; `None` (which needs ``secureCookie``) when
    /// viewers on other origins must send it.
    public var sameSite = "Lax"
    /// `Cache-Control` of what only authorised users get: `private` (default) or `no-store`.
    public var authorisedCaching = "private"
    /// Origins (`https://viewer.example.org`) besides the server's own that may receive probe tokens.
    public var tokenOrigins: [String] = []
    /// The services' and the login page's texts.
    public var texts = Texts()

    /// The rule that decides for `identifier`.
    ///
    /// - Parameter identifier: a path relative to the root, decoded (`staff/a.jpg`).
    public func rule(for identifier: String) -> Rule {
        rules.first { $0.pattern.matches(identifier) } ?? defaultRule
    }

    /// Whether some identifier may be other than public (a policy that makes everything public
    /// costs nothing per request).
    public var restrictsAnything: Bool { defaultRule.tier != .public || rules.contains { $0.tier != .public } }

    /// The policy in the JSON file at `path`; the files it names are relative to that file's folder.
    ///
    /// - Parameter path: the policy file.
    /// - Throws: ``AccessPolicyError`` for a file that cannot be read or breaks the format.
    public init(contentsOf path: String) throws {
        let bytes = try AccessSecrets.readFile(path, what: "the access policy")
        let folder = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        try self.init(json: bytes, folder: folder)
    }

    /// The policy in `json`; the files it names are relative to `folder`.
    ///
    /// - Parameters:
    ///   - json: the policy's UTF-8 JSON text.
    ///   - folder: where relative file names in it start from.
    /// - Throws: ``AccessPolicyError`` for text that breaks the format.
    public init(json: [UInt8], folder: String) throws {
        let file: PolicyFile
        do {
            file = try JSONDecoder().decode(PolicyFile.self, from: Data(json))
        } catch {
            throw AccessPolicyError("the access policy is not valid: \(Self.describe(error))")
        }
        func absolute(_ name: String?) -> String? { name.map { $0.hasPrefix("/") ? $0 : folder + "/" + $0 } }
        defaultRule = try Self.rule(PolicyFile.Rule(match: "**", access: file.default ?? .public), index: nil)
        rules = try (file.rules ?? []).enumerated().map { try Self.rule($1, index: $0) }
        usersFile = absolute(file.users)
        signingKeysFile = absolute(file.signingKeys)
        authorizeURL = file.authorize
        if let url = authorizeURL, !(url.hasPrefix("http://") || url.hasPrefix("https://")) {
            throw AccessPolicyError("authorize must be an http:// or https:// URL")
        }
        if let seconds = file.authorizeSeconds {
            guard (0.1...60).contains(seconds) else { throw AccessPolicyError("authorizeSeconds must be 0.1–60") }
            authorizeTimeout = .milliseconds(Int(seconds * 1000))
        }
        if let seconds = file.tokenSeconds {
            guard (60...31 * 86_400).contains(seconds) else { throw AccessPolicyError("tokenSeconds must be 60–2678400") }
            tokenLifetime = .seconds(seconds)
        }
        secureCookie = file.secureCookie ?? false
        sameSite = file.sameSite ?? "Lax"
        guard ["Lax", "Strict", "None"].contains(sameSite) else { throw AccessPolicyError("sameSite must be Lax, Strict or None") }
        guard sameSite != "None" || secureCookie else { throw AccessPolicyError("sameSite None needs secureCookie true (browsers require it)") }
        authorisedCaching = file.authorisedCaching ?? "private"
        guard ["private", "no-store"].contains(authorisedCaching) else { throw AccessPolicyError("authorisedCaching must be private or no-store") }
        tokenOrigins = file.tokenOrigins ?? []
        if let texts = file.texts {
            self.texts.label = texts.label ?? self.texts.label
            self.texts.heading = texts.heading ?? self.texts.heading
            self.texts.note = texts.note ?? self.texts.note
            self.texts.confirmLabel = texts.confirmLabel ?? self.texts.confirmLabel
            self.texts.logoutLabel = texts.logoutLabel ?? self.texts.logoutLabel
        }
    }

    private static func rule(_ rule: PolicyFile.Rule, index: Int?) throws -> Rule {
        let name = index.map { "rule \($0 + 1)" } ?? "the default"
        guard let pattern = IdentifierGlob(rule.match) else { throw AccessPolicyError("\(name): match must be a non-empty glob") }
        if let size = rule.maxSize, !(1...100_000).contains(size) { throw AccessPolicyError("\(name): maxSize must be 1–100000") }
        let groups = rule.groups ?? []
        guard groups.allSatisfy(UserName.isValid) else { throw AccessPolicyError("\(name): a group name has characters outside A–Z a–z 0–9 . _ @ -") }
        var substitute: Substitute?
        switch rule.access {
        case .public:
            guard rule.maxSize == nil, rule.watermark == nil, rule.grayOnly == nil, groups.isEmpty else {
                throw AccessPolicyError("\(name): a public rule takes no maxSize, watermark, grayOnly or groups")
            }
        case .degraded:
            substitute = Substitute(maxSize: rule.maxSize ?? 400, watermark: rule.watermark, grayOnly: rule.grayOnly ?? false)
        case .restricted:
            // A restricted rule offers a substitute only when it says how large.
            substitute = rule.maxSize.map { Substitute(maxSize: $0, watermark: rule.watermark, grayOnly: rule.grayOnly ?? false) }
        }
        if let watermark = rule.watermark, watermark.isEmpty || watermark.count > 100 {
            throw AccessPolicyError("\(name): watermark must be 1–100 characters")
        }
        return Rule(pattern: pattern, tier: rule.access, groups: groups, substitute: substitute)
    }

    private static func describe(_ error: any Error) -> String {
        switch error as? DecodingError {
        case .dataCorrupted(let context) where context.codingPath.isEmpty: return "not JSON"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context), .dataCorrupted(let context):
            let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            return path.isEmpty ? "not a JSON object" : "at \(path)"
        default: return "not JSON"
        }
    }

    /// The file's shape, as written.
    private struct PolicyFile: Decodable {
        struct Rule: Decodable {
            var match: String
            var access: Tier
            var groups: [String]?
            var maxSize: Int?
            var watermark: String?
            var grayOnly: Bool?
        }
        struct Texts: Decodable {
            var label, heading, note, confirmLabel, logoutLabel: String?
        }
        var `default`: Tier?
        var users: String?
        var signingKeys: String?
        var authorize: String?
        var authorizeSeconds: Double?
        var rules: [Rule]?
        var tokenSeconds: Int?
        var secureCookie: Bool?
        var sameSite: String?
        var authorisedCaching: String?
        var tokenOrigins: [String]?
        var texts: Texts?
    }
}

/// A policy, users or keys file that cannot be used; the message names the part at fault, never a path.
public struct AccessPolicyError: TesseraError {
    /// One line saying what is wrong.
    public let description: String
    /// Always `ErrorCategory.badInput`: the file is the operator's to fix.
    public var category: ErrorCategory { .badInput }

    package init(_ description: String) { self.description = description }
}

/// A glob over identifiers: `*` matches within one path segment, `**` across segments, `?` one
/// character other than `/`; everything else matches itself.
public struct IdentifierGlob: Sendable, Hashable {
    private enum Token: Hashable {
        case literal(UInt8)
        case one, segment, any
    }
    private let tokens: [Token]

    /// The glob `pattern`; nil when it is empty.
    ///
    /// - Parameter pattern: `*`, `**` and `?` as above; everything else matches itself.
    public init?(_ pattern: String) {
        guard !pattern.isEmpty else { return nil }
        var tokens: [Token] = []
        let bytes = Array(pattern.utf8)
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "*") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "*"):
                tokens.append(.any)
                index += 1
                // `**/` also matches no folder at all: `a/**/b` covers `a/b`.
                if index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "/") { index += 1 }
            case UInt8(ascii: "*"): tokens.append(.segment)
            case UInt8(ascii: "?"): tokens.append(.one)
            case let byte: tokens.append(.literal(byte))
            }
            index += 1
        }
        self.tokens = tokens
    }

    /// Whether `identifier` matches: dynamic programming over the pattern and the text, linear in
    /// their product (no backtracking blow-up, whatever the pattern).
    ///
    /// - Parameter identifier: a path relative to the root, decoded.
    public func matches(_ identifier: String) -> Bool {
        let text = Array(identifier.utf8)
        // matched[j]: whether the tokens so far match text[..<j].
        var matched = [Bool](repeating: false, count: text.count + 1)
        matched[0] = true
        for token in tokens {
            var next = [Bool](repeating: false, count: text.count + 1)
            switch token {
            case .literal(let byte):
                for j in 0..<text.count where matched[j] && text[j] == byte { next[j + 1] = true }
            case .one:
                for j in 0..<text.count where matched[j] && text[j] != UInt8(ascii: "/") { next[j + 1] = true }
            case .segment, .any:
                var reach = false
                for j in 0...text.count {
                    if matched[j] { reach = true }
                    next[j] = reach
                    // `*` stops at a `/`; `**` runs on.
                    if j < text.count && token == .segment && text[j] == UInt8(ascii: "/") { reach = false }
                }
            }
            matched = next
        }
        return matched[text.count]
    }
}

extension AccessPolicy.Substitute {
    /// The substitute's largest size of an image of `full` pixels: `full` fitted within
    /// ``maxSize`` on its longest side, never enlarged.
    func fittedSize(of full: PixelSize) -> PixelSize {
        guard full.longestSide > maxSize else { return full }
        let scale = Double(maxSize) / Double(full.longestSide)
        return PixelSize(width: max(1, Int((Double(full.width) * scale).rounded())), height: max(1, Int((Double(full.height) * scale).rounded())))
    }

    /// Whether `region` of an image of `full` pixels scaled to `scaled` is no finer than the
    /// substitute: its scale at most the fitted size's, with a pixel of rounding.
    func allows(region: PixelRect, scaledTo scaled: PixelSize, full: PixelSize) -> Bool {
        let fitted = fittedSize(of: full)
        return scaled.width * full.width <= region.width * fitted.width + full.width - 1
            && scaled.height * full.height <= region.height * fitted.height + full.height - 1
    }

    /// Whether tiles at `factor` (a full-resolution pixel per `factor` output pixels in each
    /// direction) are no finer than the substitute.
    func allows(scaleFactor factor: Int, full: PixelSize) -> Bool {
        let fitted = fittedSize(of: full)
        return factor * fitted.width >= full.width && factor * fitted.height >= full.height
    }
}
