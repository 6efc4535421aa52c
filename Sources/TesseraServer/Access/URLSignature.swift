/// Signed URLs, as image CDNs make them: the URL's path and query with `expires` (Unix seconds),
/// `key` (the key's name) and last `signature` added, the signature an HMAC-SHA256 of everything
/// before `&signature=` (URL-safe base64). Every byte of the path and of every parameter is signed:
/// a signed URL grants exactly that request until it expires.
public enum URLSignature {
    /// What a request's signature says.
    enum Verdict: Equatable {
        /// The request carries no signature.
        case unsigned
        /// Valid and unexpired: the request is granted.
        case valid
        /// Expired, tampered with, or signed with a key no longer held.
        case invalid(String)
    }

    static let domain = "tessera-url"

    /// `url` (absolute, or a path with its query) with `expires`, `key` and `signature` added.
    ///
    /// - Parameters:
    ///   - url: what to sign; may carry a query already (it is signed too), not a signature.
    ///   - keys: the keys; the first signs unless `keyName` names another.
    ///   - keyName: the key to sign with, nil for the first.
    ///   - expires: when the URL stops working, in seconds since 1970.
    /// - Throws: ``AccessPolicyError`` for a URL already signed or an unknown key.
    public static func sign(_ url: String, keys: SigningKeys, keyName: String? = nil, expires: Int) throws -> String {
        guard !url.contains("#") else { throw AccessPolicyError("a URL to sign has no fragment") }
        let origin: Substring
        let target: Substring
        // Absolute only with a scheme at the start: a path may hold "://" in a parameter.
        if url.hasPrefix("http://") || url.hasPrefix("https://"), let scheme = url.firstRange(of: "://") {
            let pathStart = url[scheme.upperBound...].firstIndex(where: { $0 == "/" || $0 == "?" }) ?? url.endIndex
            (origin, target) = (url[..<pathStart], url[pathStart...])
        } else {
            (origin, target) = ("", url[...])
        }
        guard target.hasPrefix("/") else { throw AccessPolicyError("a URL to sign needs a path") }
        let query = target.split(separator: "?", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
        guard !parameters(query).contains(where: { ["expires", "key", "signature"].contains($0.name) }) else {
            throw AccessPolicyError("the URL already has expires, key or signature")
        }
        let name = keyName ?? keys.signingKeyName
        let unsigned = target + (target.contains("?") ? "&" : "?") + "expires=\(expires)&key=\(name)"
        let signature = try keys.sign(String(unsigned), domain: domain, keyName: name)
        return origin + unsigned + "&signature=" + signature
    }

    /// What the signature of `target` (a request's path and query, as sent) says at `now` (seconds
    /// since 1970).
    static func verify(_ target: String, keys: SigningKeys, now: Int) -> Verdict {
        guard let question = target.firstIndex(of: "?") else { return .unsigned }
        let query = target[target.index(after: question)...]
        let items = parameters(query)
        guard items.contains(where: { $0.name == "signature" }) else { return .unsigned }
        guard let marker = target.ranges(of: "&signature=").last else { return .invalid("the signature must come last") }
        let signature = target[marker.upperBound...]
        guard !signature.contains("&") else { return .invalid("the signature must come last") }
        let signed = items.dropLast()
        let expires = signed.filter { $0.name == "expires" }, key = signed.filter { $0.name == "key" }
        guard expires.count == 1, key.count == 1, let until = Int(expires[0].value) else { return .invalid("expires and key are needed once each") }
        guard keys.verify(String(target[..<marker.lowerBound]), domain: domain, keyName: key[0].value, signature: signature) else {
            return .invalid("the signature does not match")
        }
        return now < until ? .valid : .invalid("the URL has expired")
    }

    /// `name=value` pairs of a raw query, in order, undecoded.
    private static func parameters(_ query: some StringProtocol) -> [(name: Substring, value: Substring)] {
        Substring(query).split(separator: "&").map { item in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (parts[0], parts.count > 1 ? parts[1] : "")
        }
    }
}
