import FoundationEssentials
import TesseraCore
public import TesseraStorage

/// Turns IIIF identifiers into objects of a store (`tessera serve s3://bucket/prefix`): the same
/// rules as ``IdentifierResolver`` (decoded once, no `..`, no hidden names, …), then the key is
/// looked up with a HEAD request, which gives the version (entity tag, size, date) the source's
/// identity is made of.
///
/// What a HEAD said is kept for ``freshness``, so a viewer's burst of tile requests costs one HEAD,
/// not one per tile; an object replaced in the store is noticed within that time, and its new
/// version gets new cache keys and a new pyramid.
public final class ObjectSourceResolver: Sendable {
    /// The store the root is in: identifiers are its keys.
    public let store: any ObjectStoring
    /// How long a HEAD's answer is reused.
    public let freshness: Duration
    private let known = Locked(LRUCache<String, Entry>(costLimit: 10_000))

    private struct Entry {
        let source: ResolvedSource?
        let at: ContinuousClock.Instant
    }

    /// Resolves identifiers to the objects of `store`, reusing what a HEAD said for `freshness`.
    public init(store: any ObjectStoring, freshness: Duration = .seconds(10)) {
        self.store = store
        self.freshness = freshness
    }

    /// The object `identifier` (raw, still percent-encoded) names.
    /// - Throws: ``IdentifierError`` (invalid or not found), or the store's error when it cannot be asked.
    public func resolve(_ identifier: String) async throws -> ResolvedSource {
        do {
            return try await resolveObject(identifier)
        } catch let error as IdentifierError where error.reason == .notFound {
            guard let (object, suffix) = IdentifierResolver.suffix(of: identifier),
                let source = try? await resolveObject(object)
            else { throw error }
            return source.applying(suffix)
        }
    }

    private func resolveObject(_ identifier: String) async throws -> ResolvedSource {
        let relative = try IdentifierResolver.relativePath(of: identifier)
        let now = ContinuousClock.now
        if let entry = known.withLock({ $0.value(for: relative) }), now - entry.at < freshness {
            guard let source = entry.source else { throw IdentifierError(identifier: identifier, reason: .notFound) }
            return source
        }
        guard (try? ObjectKey.validate(relative)) != nil else { throw IdentifierError(identifier: identifier, reason: .notFound) }
        let source = try await store.head(relative).map { metadata in
            ResolvedSource(
                relativePath: relative, object: ObjectByteRange(store: store, key: relative, byteCount: metadata.size),
                metadata: metadata)
        }
        known.withLock { _ = $0.insert(Entry(source: source, at: now), for: relative, cost: 1) }
        guard let source else { throw IdentifierError(identifier: identifier, reason: .notFound) }
        return source
    }
}
