import NIOCore
import TesseraCodecs
import TesseraCore
import TesseraIIIF
import TesseraTiles

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// Stored tiles found and read whole, for the event loop's answers and the router's.
extension ImageService {
    /// The stored bytes that answer `request` for `identifier` at once, when they are there: the
    /// source is a file whose header is already known, and the request is an aligned tile of its
    /// pyramid, already built. Nil otherwise, and on any failure (``image(for:request:)`` then
    /// answers, or reports it). Synchronous, for the event loop: a few `stat`s and one small read.
    func storedTile(
        identifier: String, request: IIIFImageRequest
    ) -> (source: ResolvedSource, body: ByteBuffer, resolved: ResolvedIIIFRequest, tilePath: String)? {
        guard let source = recentlyResolved(identifier),
            let plan = planner.knownPlan(for: source),
            let resolved = try? request.resolved(imageSize: plan.properties.displaySize, limits: configuration.limits),
            let path = storedTilePath(resolved, of: source, plan: plan), let body = try? Self.readFile(path)
        else { return nil }
        return (source, body, resolved, path)
    }

    /// `identifier`'s source for ``storedTile(identifier:request:)``: the real path a full resolution
    /// found within the root's freshness (its realpath walk costs a `readlink` per path
    /// component), with the file's identity read now, so a changed file is never served old tiles.
    /// Nothing outside the root is read through a reused path: an identity that is not a built
    /// pyramid's sends the request to the route, which resolves it in full.
    func recentlyResolved(_ identifier: String) -> ResolvedSource? {
        guard let resolver else { return nil }
        let now = ContinuousClock.now
        if let (source, checked) = resolutions.withLock({ $0.value(for: identifier) }), now - checked < configuration.rootFreshness {
            guard let path = source.path, let identity = FileIdentity(path: path) else { return nil }
            guard identity != source.identity else { return source }
            let changed = ResolvedSource(relativePath: source.relativePath, path: path, identity: identity)
            return source.page.map { changed.page($0) } ?? changed
        }
        guard let source = try? resolver.resolve(identifier) else { return nil }
        resolutions.withLock { _ = $0.insert((source, now), for: identifier, cost: 1) }
        return source
    }

    /// The file of an aligned tile of a pyramid already built, whose bytes are the answer: read on
    /// the calling thread, as nginx serves files (a small read, from the page cache once warm), with
    /// no hop to a worker and no copy in the memory cache, which is kept for what costs work to make.
    /// Nil when the request is anything else, or the pyramid is not there.
    func storedTilePath(_ request: ResolvedIIIFRequest, of source: ResolvedSource, plan: SourcePlan) -> String? {
        // Only derived sources have built pyramids; turned ones are composed and turned.
        guard plan.mode == .derived, plan.properties.orientation == .up,
            let pyramid = pyramidSource.builtPyramid(.iiif, for: source, imageSize: plan.properties.size),
            let layout = pyramid.layout as? IIIFLayout, let tile = AlignedTile(request, layout: layout),
            let path = pyramid.tilePath(reduction: tile.reduction, column: tile.column, row: tile.row)
        else { return nil }
        return path
    }

    /// A whole file's bytes (a stored tile): `byteCount` of them when the length is known (no
    /// `fstat`; a file of another length fails), else as many as `fstat` says. The message of a
    /// failure names no path.
    static func readFile(_ path: String, byteCount: Int? = nil) throws -> ByteBuffer {
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
