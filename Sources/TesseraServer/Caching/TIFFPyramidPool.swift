import TesseraCodecs
import TesseraCore
import TesseraIIIF

/// The shape of a tiled multi-resolution TIFF, as the server serves it: IIIF tiles of the file's
/// own tile size, scale factors one per level.
struct TIFFPyramidShape: Sendable, Hashable {
    let levelSizes: [PixelSize]
    let tileSize: PixelSize
    let pixelFormat: PixelFormat
}

/// Open ``TIFFPyramid`` readers, a few per source, so that concurrent requests read with their own
/// libtiff handles and none reopens the file for a tile; and, per source identity, whether it is such
/// a pyramid at all (asked once).
///
/// A TIFF counts as a pyramid to serve from when its levels go down to one that fits in 2×2 tiles:
/// then every request has a level within 2× of what it needs. A tiled TIFF without that (one level,
/// or levels that stop early) gets a built pyramid like any other large image.
final class TIFFPyramidPool: Sendable {
    private let state: Locked<LRUCache<FileIdentity, Entry>>
    private let options: DecodeOptions
    private let idleReadersPerSource: Int

    private enum Entry {
        case notServable
        case pyramid(TIFFPyramidShape, idle: [Reader])
    }

    /// A reader moved between threads whole: taken out of the pool under its lock, used by the one
    /// thread that took it, and put back after.
    private final class Reader: @unchecked Sendable {
        let pyramid: TIFFPyramid
        init(_ pyramid: TIFFPyramid) { self.pyramid = pyramid }
    }

    /// - Parameters:
    ///   - sourceLimit: sources whose answer (and idle readers) are remembered, least recently used dropped.
    ///   - idleReadersPerSource: readers kept open per source between requests (the worker count).
    init(sourceLimit: Int = 256, idleReadersPerSource: Int, options: DecodeOptions) {
        state = Locked(LRUCache(costLimit: sourceLimit))
        self.idleReadersPerSource = max(1, idleReadersPerSource)
        self.options = options
    }

    /// The pyramid's shape, or nil when `source` is not a TIFF pyramid the server reads directly
    /// (libtiff reads files; a TIFF in a store gets a built pyramid). Blocking on first use per
    /// source (opens the file); run it on the executor.
    func shape(of source: ResolvedSource) throws -> TIFFPyramidShape? {
        guard let path = source.path else { return nil }
        switch state.withLock({ $0.value(for: source.identity) }) {
        case .notServable: return nil
        case .pyramid(let shape, _): return shape
        case nil: break
        }
        guard let pyramid = try TIFFPyramid(path: path, options: options),
            let coarsest = pyramid.levelSizes.last,
            coarsest.width <= 2 * pyramid.tileSize.width, coarsest.height <= 2 * pyramid.tileSize.height
        else {
            state.withLock { _ = $0.insert(.notServable, for: source.identity, cost: 1) }
            return nil
        }
        let shape = TIFFPyramidShape(levelSizes: pyramid.levelSizes, tileSize: pyramid.tileSize, pixelFormat: pyramid.pixelFormat)
        checkIn(Reader(pyramid), shape: shape, for: source.identity)
        return shape
    }

    /// Runs `body` with a reader of `source`'s pyramid to itself (an idle one, or one opened now).
    /// Blocking; run it on the executor.
    func withReader<T>(_ source: ResolvedSource, shape: TIFFPyramidShape, _ body: (TIFFPyramid) throws -> T) throws -> T {
        let taken = state.withLock { cache -> Reader? in
            guard case .pyramid(let shape, var idle) = cache.value(for: source.identity), let reader = idle.popLast() else { return nil }
            _ = cache.insert(.pyramid(shape, idle: idle), for: source.identity, cost: 1)
            return reader
        }
        let reader: Reader
        if let taken {
            reader = taken
        } else {
            guard let path = source.path, let opened = try TIFFPyramid(path: path, options: options), opened.levelSizes == shape.levelSizes else {
                throw ServerError(.corrupt, "the TIFF pyramid changed while it was being served")
            }
            reader = Reader(opened)
        }
        let result = try body(reader.pyramid)
        checkIn(reader, shape: shape, for: source.identity)
        return result
    }

    private func checkIn(_ reader: Reader, shape: TIFFPyramidShape, for identity: FileIdentity) {
        state.withLock { cache in
            var idle: [Reader] = []
            if case .pyramid(_, let current) = cache.peek(identity) { idle = current }
            if idle.count < idleReadersPerSource { idle.append(reader) }
            _ = cache.insert(.pyramid(shape, idle: idle), for: identity, cost: 1)
        }
    }
}
