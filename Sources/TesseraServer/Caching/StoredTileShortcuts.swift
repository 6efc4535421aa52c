import HTTPTypes
import NIOCore
import TesseraCore
import TesseraIIIF

/// What answering a URL with a stored tile found (the source's real path and identity, the tile's
/// file and length, the response's headers), kept so that the next request for the same URL is one
/// `stat` and one file read, with no parsing, resolving or header building.
///
/// An entry is used only while its source has the same identity (checked with a `stat` on every
/// use, so a changed file is never answered with old tiles) and for at most ``reuse`` (the root's
/// freshness; after it the identifier is resolved again, so a symlink pointed elsewhere is
/// followed). A tile no longer there (its pyramid evicted) fails the read, and the request goes the
/// long way. An entry is small (under 1 KB: the headers its tiles share are kept once per
/// source), and there are at most ``capacity``.
final class StoredTileShortcuts: Sendable {
    struct Key: Hashable, Sendable {
        let authority: String?
        /// The request target, as sent.
        let target: String
    }

    /// What the tiles of one source share: its file, and the headers of a `200` and a `304` but
    /// those of one tile (entity tag, links, length). Aligned tiles are all JPEG, none negotiated.
    final class Source: Sendable {
        let path: String
        let identity: FileIdentity
        let lastModified: Int64?
        let full: HTTPFields
        let notModified: HTTPFields
        /// For a source not everyone may see whole, what its requesters must have (access
        /// control's ``AccessControl/requiredGroups(of:)``, asked of on every use); nil for a
        /// public one. Its headers are then those of a private answer.
        let requiredGroups: [[String]]?

        init(path: String, identity: FileIdentity, response: CacheableResponse, commonFields: HTTPFields, restriction: Restriction?) {
            self.path = path
            self.identity = identity
            requiredGroups = restriction?.groups
            lastModified = response.lastModified
            var notModified = response.cachingFields()
            notModified.append(contentsOf: commonFields)
            for field in restriction?.fields ?? [:] { notModified[field.name] = field.value }
            var full = notModified
            full.append(contentsOf: response.representationFields())
            self.full = full
            self.notModified = notModified
        }
    }

    /// What a restricted source's tiles ask of a request, and the headers of their answers.
    struct Restriction: Sendable, Equatable {
        let groups: [[String]]
        let fields: HTTPFields
    }

    struct Entry: Sendable {
        let source: Source
        let tilePath: String
        let tileByteCount: Int
        let entityTag: String
        /// The `Link` header's value.
        let links: String
        let found: ContinuousClock.Instant

        /// The answer to `request`: `304` when the client's copy is current, else `200` with the
        /// tile's bytes (`body` when already read); nil when the tile cannot be read.
        func response(to request: HTTPRequest, body: ByteBuffer? = nil) -> (head: HTTPResponse, body: ByteBuffer)? {
            if CacheableResponse.isNotModified(request.headerFields, entityTag: entityTag, lastModified: source.lastModified) {
                var fields = source.notModified
                fields[.eTag] = entityTag
                return (HTTPResponse(status: .notModified, headerFields: fields), ByteBuffer())
            }
            guard let body = body ?? (try? StoredTileReader.contents(of: tilePath, byteCount: tileByteCount)) else { return nil }
            var fields = source.full
            fields[.eTag] = entityTag
            fields[CacheableResponse.linkField] = links
            fields[.contentLength] = String(tileByteCount)
            return (HTTPResponse(status: .ok, headerFields: fields), body)
        }
    }

    /// How long an entry stands before the identifier is resolved again.
    let reuse: Duration
    /// Headers every response carries (CORS, the server's name), added to each source's.
    let commonFields: HTTPFields

    private struct State {
        var entries: [Key: Entry] = [:]
        var sources: [FileIdentity: Source] = [:]
    }

    /// A plain dictionary, not an LRU: a hit only reads it, and entries expire anyway.
    private let state = Locked(State())
    static let capacity = 8192

    init(reuse: Duration, commonFields: HTTPFields) {
        self.reuse = reuse
        self.commonFields = commonFields
    }

    /// How many URLs are known.
    var count: Int { state.withLock { $0.entries.count } }

    /// The current entry for `key`: nil when there is none or it no longer holds. A restricted
    /// source's entry (``Source/requiredGroups``) answers only a request access control admits.
    func entry(for key: Key) -> Entry? {
        guard let entry = state.withLock({ $0.entries[key] }), ContinuousClock.now - entry.found < reuse,
            FileIdentity(path: entry.source.path) == entry.source.identity
        else { return nil }
        return entry
    }

    /// Keeps what answering `key` with `response` (the tile's bytes, from `tilePath`) found.
    /// `restriction`: what a source not everyone may see whole asks of requests, nil when public.
    func remember(
        _ key: Key, source resolved: ResolvedSource, tilePath: String, response: CacheableResponse, restriction: Restriction? = nil
    ) -> Entry? {
        guard let path = resolved.path else { return nil }
        let now = ContinuousClock.now
        let links = response.links.joined(separator: ", ")
        return state.withLock { state in
            if state.entries.count >= Self.capacity, state.entries[key] == nil {
                state.entries = state.entries.filter { now - $0.value.found < reuse }
                if state.entries.count >= Self.capacity { state.entries.removeAll(keepingCapacity: true) }
                let kept = Set(state.entries.values.map(\.source.identity))
                state.sources = state.sources.filter { kept.contains($0.key) }
            }
            let source: Source
            if let known = state.sources[resolved.identity], known.path == path, known.lastModified == response.lastModified,
                known.requiredGroups == restriction?.groups
            {
                source = known
            } else {
                source = Source(
                    path: path, identity: resolved.identity, response: response, commonFields: commonFields, restriction: restriction)
                state.sources[resolved.identity] = source
            }
            let entry = Entry(
                source: source, tilePath: tilePath, tileByteCount: response.body.readableBytes, entityTag: response.entityTag,
                links: links, found: now)
            state.entries[key] = entry
            return entry
        }
    }
}
