public import FoundationEssentials

/// Fetches the encoded bytes behind a URL.
public protocol DataLoading: Sendable {
    /// Loads `url`. With `validators` (from a stale cached copy), a server may answer
    /// ``FetchedData/Outcome/notModified`` instead of sending the body again.
    func loadData(for url: URL, validators: HTTPValidators?) async throws -> FetchedData
}

/// What identifies a cached response to its server, for revalidation.
public struct HTTPValidators: Sendable, Hashable, Codable {
    /// The `ETag` the server sent, sent back as `If-None-Match`.
    public var etag: String?
    /// The `Last-Modified` date the server sent, as sent; sent back as `If-Modified-Since`.
    public var lastModified: String?

    /// Validators from a response's headers; either may be missing.
    public init(etag: String? = nil, lastModified: String? = nil) {
        self.etag = etag
        self.lastModified = lastModified
    }

    /// True when there is neither validator, so the copy cannot be revalidated.
    public var isEmpty: Bool { etag == nil && lastModified == nil }
}

/// A fetch's result with the caching instructions that came with it.
public struct FetchedData: Sendable {
    /// The body, or word that the cached copy is still good.
    public enum Outcome: Sendable {
        /// 200: the whole body.
        case data(Data)
        /// 304: the cached copy is still good.
        case notModified
    }

    /// The body, or ``Outcome/notModified``.
    public var outcome: Outcome
    /// The response's `ETag` and `Last-Modified`, to keep with the cached copy.
    public var validators: HTTPValidators
    /// `Cache-Control: no-store`: keep it out of every cache on disk.
    public var noStore: Bool
    /// `Cache-Control: max-age`, in seconds: how long the copy is fresh without revalidation.
    public var maxAge: TimeInterval?

    /// A result with its caching instructions; by default none (cacheable, fresh until it expires).
    public init(outcome: Outcome, validators: HTTPValidators = HTTPValidators(), noStore: Bool = false, maxAge: TimeInterval? = nil) {
        self.outcome = outcome
        self.validators = validators
        self.noStore = noStore
        self.maxAge = maxAge
    }

    /// Reads `Cache-Control` directives.
    static func cacheControl(_ value: String?) -> (noStore: Bool, maxAge: TimeInterval?) {
        guard let value else { return (false, nil) }
        var noStore = false
        var maxAge: TimeInterval?
        for directive in value.lowercased().split(separator: ",") {
            let parts = directive.trimmed(" \t").split(separator: "=", maxSplits: 1)
            switch parts.first {
            case "no-store": noStore = true
            case "no-cache": maxAge = 0
            case "max-age" where parts.count == 2:
                maxAge = deltaSeconds(parts[1].trimmed("\" "))
            default: break
            }
        }
        return (noStore, maxAge)
    }

    /// A `max-age` value as RFC 9111 (§1.2.2) reads it: digits only, anything over 2³¹ counting as
    /// 2³¹. An invalid value (a sign, a fraction, `nan`, `inf`: found by FuzzCacheHeaders, where
    /// `max-age=nan` became a NaN lifetime that lost the stored response) makes the response stale,
    /// as §4.2.1 asks: 0.
    static func deltaSeconds(_ text: Substring) -> TimeInterval {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isWholeNumber }) else { return 0 }
        return TimeInterval(Int(text).map { min($0, 1 << 31) } ?? 1 << 31)
    }
}

extension StringProtocol {
    /// This text without the characters of `set` at either end.
    fileprivate func trimmed(_ set: String) -> Substring {
        let text = self[...]
        let start = text.firstIndex { !set.contains($0) } ?? text.endIndex
        let end = text[start...].lastIndex { !set.contains($0) }.map { text.index(after: $0) } ?? start
        return Substring(text[start..<end])
    }
}
