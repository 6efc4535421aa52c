import TesseraCore
import TesseraIIIF

/// Identifiers resolved to sources, once for both of a request's doors (the event loop's stored
/// tiles and the router): a file under the root directory, or an object in the root store.
///
/// A file's full resolution (its realpath walk costs a `readlink` per path component) is reused
/// within the root's freshness (``ServerConfiguration/rootFreshness``; after it the identifier is
/// resolved again, so a symbolic link pointed elsewhere is followed) as long as the file's
/// identity, read again on every use, is the one resolved: a changed file, or anything else now at
/// its path, is resolved in full again, so nothing outside the root is read through a reused path.
/// Objects are resolved by their own resolver, which keeps what it found for the same freshness.
final class SourceResolver: Sendable {
    /// The root directory's resolver; nil for a root in a store.
    let files: IdentifierResolver?
    private let objects: ObjectSourceResolver?
    private let freshness: Duration
    private let metrics: ServerMetrics
    private let resolutions = Locked(LRUCache<String, (source: ResolvedSource, checked: ContinuousClock.Instant)>(costLimit: 4096))

    init(configuration: ServerConfiguration, metrics: ServerMetrics) throws {
        if let store = configuration.rootStore {
            files = nil
            objects = ObjectSourceResolver(store: store, freshness: configuration.rootFreshness)
        } else {
            files = try IdentifierResolver(root: configuration.root)
            objects = nil
        }
        freshness = configuration.rootFreshness
        self.metrics = metrics
    }

    /// The source `identifier` names.
    /// - Throws: what the root's resolver throws (not found, outside the root, not an image).
    func resolve(_ identifier: String) async throws -> ResolvedSource {
        if let objects { return try await objects.resolve(identifier) }
        return try resolveFile(identifier)
    }

    /// The file `identifier` names, resolved without waiting: nil when it names none, and for a
    /// root in a store (whose objects are never looked up on the event loop).
    func resolveWithoutWaiting(_ identifier: String) -> ResolvedSource? {
        guard files != nil else { return nil }
        return try? resolveFile(identifier)
    }

    private func resolveFile(_ identifier: String) throws -> ResolvedSource {
        let now = ContinuousClock.now
        if let (source, checked) = resolutions.withLock({ $0.value(for: identifier) }), now - checked < freshness,
            let path = source.path, FileIdentity(path: path) == source.identity
        {
            return source
        }
        metrics.record(.resolution)
        let source = try files!.resolve(identifier)
        resolutions.withLock { _ = $0.insert((source, now), for: identifier, cost: 1) }
        return source
    }
}
