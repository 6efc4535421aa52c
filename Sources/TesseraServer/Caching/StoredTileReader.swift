import NIOCore
import TesseraCodecs
import TesseraCore
import TesseraIIIF
import TesseraTiles
import TesseraViewing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Aligned tiles of built pyramids found and read whole, for the event loop's answers
/// (``StoredTileShortcuts``) and the router's: a request whose answer is a stored tile's bytes is
/// a few `stat`s and one small read, with no hop to a worker and no copy in the memory cache,
/// which is kept for what costs work to make.
final class StoredTileReader: Sendable {
    private let configuration: ServerConfiguration
    private let sources: SourceResolver
    private let planner: SourcePlanner
    private let pyramids: any PyramidStoring
    private let metrics: ServerMetrics

    init(
        configuration: ServerConfiguration, sources: SourceResolver, planner: SourcePlanner, pyramids: any PyramidStoring, metrics: ServerMetrics
    ) {
        self.configuration = configuration
        self.sources = sources
        self.planner = planner
        self.pyramids = pyramids
        self.metrics = metrics
    }

    /// The stored bytes that answer the request for `identifier` at once, when they are there: the
    /// source is a file whose plan is already made, with its IIIF pyramid built, and the request
    /// (parsed by `parse`, only then) is an aligned tile of it. Nil otherwise, and on any failure
    /// (the route then answers, or reports it). Synchronous, for the event loop: a few `stat`s and
    /// one small read.
    func tile(
        identifier: String, parse: () -> IIIFImageRequest?
    ) -> (source: ResolvedSource, body: ByteBuffer, request: IIIFImageRequest, resolved: ResolvedIIIFRequest, tilePath: String)? {
        guard let source = sources.resolveWithoutWaiting(identifier),
            let plan = planner.knownPlan(for: source), let pyramid = builtPyramid(of: source, plan: plan),
            let request = parse(),
            let resolved = try? request.resolved(imageSize: plan.properties.displaySize, limits: configuration.limits),
            let path = Self.path(answering: resolved, in: pyramid), let body = try? Self.contents(of: path)
        else { return nil }
        return (source, body, request, resolved, path)
    }

    /// The stored bytes that answer `request` of `source`, when it is an aligned tile of a pyramid
    /// already built or of a source's own stored tiles (a slide's, passed through:
    /// ``SourcePlan/storedTile(answering:)``); nil otherwise, and when the tile cannot be read
    /// (the request then goes the long way, which reports the failure).
    func body(answering request: ResolvedIIIFRequest, of source: ResolvedSource, plan: SourcePlan) -> ByteBuffer? {
        if let tile = plan.storedTile(answering: request) {
            // Read here, as a built tile is: one small read, with no hop to a worker and no copy
            // in the memory cache, which is kept for what costs work to make.
            guard let stored = try? plan.source.storedTile(level: tile.level, column: tile.column, row: tile.row), stored.format == .jpeg
            else { return nil }
            metrics.record(.storedTilePassThrough)
            return ByteBuffer(bytes: stored.bytes)
        }
        guard let pyramid = builtPyramid(of: source, plan: plan), let path = Self.path(answering: request, in: pyramid) else { return nil }
        return try? Self.contents(of: path)
    }

    /// The IIIF pyramid whose stored tiles are answers for `source`: only derived sources have
    /// built pyramids, and only upright ones are answered with them (turned ones are composed and
    /// turned).
    private func builtPyramid(of source: ResolvedSource, plan: SourcePlan) -> BuiltPyramid? {
        guard plan.mode == .derived, plan.properties.orientation == .up else { return nil }
        return pyramids.builtPyramid(.iiif, for: source, imageSize: plan.properties.size)
    }

    /// The file of `pyramid`'s tile that is `request`'s answer; nil when the request is anything else.
    private static func path(answering request: ResolvedIIIFRequest, in pyramid: BuiltPyramid) -> String? {
        guard let layout = pyramid.layout as? IIIFLayout, let tile = AlignedTile(request, layout: layout) else { return nil }
        return pyramid.tilePath(reduction: tile.reduction, column: tile.column, row: tile.row)
    }

    /// A whole file's bytes (a stored tile), read on the calling thread as nginx serves files (a
    /// small read, from the page cache once warm): `byteCount` of them when the length is known
    /// (no `fstat`; a file of another length fails), else as many as `fstat` says. The message of
    /// a failure names no path.
    static func contents(of path: String, byteCount: Int? = nil) throws -> ByteBuffer {
        func failure(_ code: Int32) -> ServerError {
            ServerError(.io, "a stored tile could not be read: \(String(cString: strerror(code)))")
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ServerError(.io, "a stored tile could not be opened: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        let length: Int
        if let byteCount {
            length = byteCount
        } else {
            var info = stat()
            guard fstat(descriptor, &info) == 0 else { throw failure(errno) }
            length = Int(info.st_size)
        }
        // One byte more than expected is asked for, so a longer file shows as one; reading stops
        // at the expected length without a read that finds the end.
        var buffer = ByteBufferAllocator().buffer(capacity: length + 1)
        var error: Int32 = 0
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: length + 1) { space in
            var done = 0
            while done < length || length == 0 {
                let count = read(descriptor, space.baseAddress! + done, length + 1 - done)
                if count < 0, errno == EINTR { continue }
                if count < 0 { error = errno }
                if count <= 0 { break }
                done += count
                if done > length { break }
            }
            return done
        }
        guard error == 0 else { throw failure(error) }
        guard buffer.readableBytes == length else { throw failure(EIO) }
        return buffer
    }
}
