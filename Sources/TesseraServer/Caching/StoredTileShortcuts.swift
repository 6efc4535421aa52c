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
        /// The names of a source not everyone may see whole (what access control is asked of on
        /// every use); nil for a public one.
        let restrictedNames: [String]?

        init(path: String, identity: FileIdentity, response: CacheableResponse, commonFields: HTTPFields, restrictedNames: [String]?) {
            self.path = path
            self.identity = identity
            self.restrictedNames = restrictedNames
            lastModified = response.lastModified
            var notModified = response.cachingFields()
            notModified.append(contentsOf: commonFields)
            var full = notModified
            full.append(contentsOf: response.representationFields())
            self.full = full
            self.notModified = notModified
        }
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
        /// tile's bytes (`body` when already read), with `extra` headers (a private answer's);
        /// nil when the tile cannot be read.
        func response(to request: HTTPRequest, body: ByteBuffer? = nil, extra: HTTPFields = [:]) -> (head: HTTPResponse, body: ByteBuffer)? {
            if CacheableResponse.isNotModified(request.headerFields, entityTag: entityTag, lastModified: source.lastModified) {
                var fields = source.notModified
                fields[.eTag] = entityTag
                for field in extra { fields[field.name] = field.value }
                return (HTTPResponse(status: .notModified, headerFields: fields), ByteBuffer())
            }
            guard let body = body ?? (try? ImageService.readFile(tilePath, byteCount: tileByteCount)) else { return nil }
            var fields = source.full
            for field in extra { fields[field.name] = field.value }
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

    /// The response to `request`, known as `key`, from a current entry; nil when there is none, it
    /// no longer holds, or its source is restricted and `admit` (asked with its names) gives no
    /// headers for this request (the router and access control then answer it).
    func response(
        to request: HTTPRequest, key: Key, admit: (_ names: [String]) -> HTTPFields?
    ) -> (head: HTTPResponse, body: ByteBuffer)? {
        guard let entry = state.withLock({ $0.entries[key] }), ContinuousClock.now - entry.found < reuse,
            FileIdentity(path: entry.source.path) == entry.source.identity
        else { return nil }
        guard let names = entry.source.restrictedNames else { return entry.response(to: request) }
        guard let extra = admit(names) else { return nil }
        return entry.response(to: request, extra: extra)
    }

    /// Keeps what answering `key` with `response` (the tile's bytes, from `tilePath`) found.
    /// `restrictedNames`: the source's names when not everyone may see it whole, nil when public.
    func remember(
        _ key: Key, source resolved: ResolvedSource, tilePath: String, response: CacheableResponse, restrictedNames: [String]? = nil
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
                known.restrictedNames == restrictedNames
            {
                source = known
            } else {
                source = Source(
                    path: path, identity: resolved.identity, response: response, commonFields: commonFields, restrictedNames: restrictedNames)
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
