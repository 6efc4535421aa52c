public import FoundationEssentials

/// Keeps encoded bytes on disk between runs.
public protocol DataCaching: Sendable {
    /// The cached copy for `key`, if one exists, is intact and has not expired.
    func lookup(_ key: String) async -> CachedData?
    /// Stores `data` for `key`, replacing any previous copy. `maxAge` (seconds) bounds how long it
    /// is fresh without revalidation; nil means fresh until it expires.
    func store(_ data: Data, for key: String, validators: HTTPValidators, maxAge: TimeInterval?) async
    /// Marks the copy fresh again after the server answered 304 Not Modified.
    func refresh(_ key: String, validators: HTTPValidators, maxAge: TimeInterval?) async
    /// Deletes the copy for `key`, if there is one.
    func remove(_ key: String) async
}

/// A cached copy: the file holding it and what is needed to revalidate it.
public struct CachedData: Sendable {
    /// The key it was stored under (a request's ``ImageRequest/dataKey``).
    public var key: String
    /// The file holding the bytes; read it before the entry can be evicted.
    public var fileURL: URL
    /// Size of the cached bytes.
    public var byteCount: Int
    /// False once `max-age` has passed: the copy must be revalidated before use.
    public var isFresh: Bool
    /// The `ETag` and `Last-Modified` the server sent, for a conditional request.
    public var validators: HTTPValidators
}
