public import FoundationEssentials

/// Where pyramids, derivatives and originals are kept: a flat namespace of keys (`a/b/c.jpg`,
/// slash-separated, relative to the store's root) holding immutable blobs.
///
/// Two implementations: ``FileObjectStore`` (a directory; the default, embedded) and
/// ``S3ObjectStore`` (any S3-compatible service), so several servers can share one store.
/// Keys are checked by ``ObjectKey``: no empty, `.` or `..` segments, no control characters.
public protocol ObjectStoring: Sendable {
    /// The object's bytes, or those in `range` (byte offsets; clipped at the object's end).
    /// - Throws: ``ObjectStorageError/notFound(key:)`` when there is no such object.
    func get(_ key: String, range: Range<Int>?) async throws -> Data

    /// The object's size and validators; nil when there is no such object.
    func head(_ key: String) async throws -> ObjectMetadata?

    /// Stores `data` under `key`, replacing any object there. Readers see the old object or the
    /// new one, never a mixture.
    func put(_ key: String, _ data: Data, contentType: String?) async throws

    /// Stores `data` under `key` only if no object is there (a conditional create: S3's
    /// `If-None-Match: *`). Returns false, storing nothing, when one is.
    func create(_ key: String, _ data: Data, contentType: String?) async throws -> Bool

    /// One page of the objects whose keys start with `prefix`, in key order, after `continuation`
    /// (the previous page's ``ObjectListing/continuation``; nil for the first page).
    func list(prefix: String, continuation: String?) async throws -> ObjectListing

    /// Removes the object; removing one that is not there is not an error.
    func delete(_ key: String) async throws
}

extension ObjectStoring {
    /// The whole object.
    public func get(_ key: String) async throws -> Data { try await get(key, range: nil) }

    /// Stores `data` under `key` with no content type, replacing any object there.
    public func put(_ key: String, _ data: Data) async throws { try await put(key, data, contentType: nil) }

    /// Every object under `prefix`, page by page, up to `limit` of them.
    public func listAll(prefix: String, limit: Int = .max) async throws -> [ObjectMetadata] {
        var objects: [ObjectMetadata] = []
        var continuation: String?
        repeat {
            try Task.checkCancellation()
            let page = try await list(prefix: prefix, continuation: continuation)
            objects += page.objects.prefix(limit - objects.count)
            continuation = page.continuation
        } while continuation != nil && objects.count < limit
        return objects
    }
}

/// What a store knows of one object.
public struct ObjectMetadata: Sendable, Equatable, Codable {
    /// The key, relative to the store's root.
    public var key: String
    /// Bytes.
    public var size: Int
    /// The store's entity tag (S3: quoted), or nil when it has none.
    public var etag: String?
    /// When it was last written.
    public var lastModified: Date?

    /// What a store reports of the object at `key`, of `size` bytes.
    public init(key: String, size: Int, etag: String? = nil, lastModified: Date? = nil) {
        self.key = key
        self.size = size
        self.etag = etag
        self.lastModified = lastModified
    }
}

/// One page of a listing.
public struct ObjectListing: Sendable, Equatable {
    /// The objects of this page, in key order.
    public var objects: [ObjectMetadata]
    /// Where the next page starts; nil on the last page.
    public var continuation: String?

    /// A page of `objects`, followed by the page that starts at `continuation` (nil: none follows).
    public init(objects: [ObjectMetadata], continuation: String?) {
        self.objects = objects
        self.continuation = continuation
    }
}

/// The rules every key follows, whatever the store: a file system and S3 then agree on what a key
/// means, and no key can reach outside the store's root.
public enum ObjectKey {
    /// The longest key, in UTF-8 bytes: S3's limit, less room for a prefix.
    public static let maximumByteCount = 900

    /// Throws unless `key` is 1 to ``maximumByteCount`` bytes of non-empty `/`-separated segments,
    /// none `.` or `..`, with no control characters.
    public static func validate(_ key: String) throws(ObjectStorageError) {
        guard !key.isEmpty, key.utf8.count <= maximumByteCount,
            !key.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }),
            key.split(separator: "/", omittingEmptySubsequences: false).allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." })
        else { throw .invalidKey(key) }
    }

    /// A prefix for listing: empty, or a valid key with or without a trailing `/`.
    static func validate(prefix: String) throws(ObjectStorageError) {
        guard !prefix.isEmpty else { return }
        try validate(prefix.hasSuffix("/") ? String(prefix.dropLast()) : prefix)
    }
}
