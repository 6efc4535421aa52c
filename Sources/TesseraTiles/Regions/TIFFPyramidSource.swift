public import TesseraCodecs
public import TesseraCore

/// A tiled multi-resolution TIFF (`vips tiffsave --tile --pyramid`, the files iipsrv serves) as a
/// ``RegionSource``: its directories are its native levels, each read tile by tile with nothing
/// derived from the file. Readers are libtiff handles, one thread at a time each; the source takes
/// one from its ``TIFFReaderPool`` for each read (opening one when all are busy) and gives it back.
public struct TIFFPyramidSource: TiledRegionSource {
    public let properties: ImageProperties
    public let nativeLevels: [NativeLevel]
    public let pixelFormat: PixelFormat
    /// TIFF pyramids are read tile by tile, never whole.
    public var holdsWholeImage: Bool { false }
    private let path: String
    private let identity: FileIdentity
    private let options: DecodeOptions
    private let readers: TIFFReaderPool

    /// The pyramid of the TIFF at `path` (whose identity is `identity` and header `properties`),
    /// or nil when it is none to serve from: strips, one level, a turned image, or levels that stop
    /// before one that fits in 2×2 tiles (then a request could find no level within 2× of what
    /// it needs).
    public init?(
        path: String, identity: FileIdentity, properties: ImageProperties, options: DecodeOptions, readers: TIFFReaderPool
    ) throws {
        guard let pyramid = try TIFFPyramid(path: path, options: options), let coarsest = pyramid.levelSizes.last,
            coarsest.width <= 2 * pyramid.tileSize.width, coarsest.height <= 2 * pyramid.tileSize.height
        else { return nil }
        self.properties = properties
        self.path = path
        self.identity = identity
        self.options = options
        self.readers = readers
        pixelFormat = pyramid.pixelFormat
        nativeLevels = pyramid.levelSizes.enumerated().map { index, size in
            NativeLevel(size: size, downsample: 1 << index, storedTileSize: pyramid.tileSize)
        }
        readers.checkIn(pyramid, for: identity)
    }

    public func tile(level: Int, column: Int, row: Int, context: WorkContext) throws -> PixelBuffer {
        try context.checkCancellation()
        let pyramid = try readers.checkOut(identity) ?? open()
        let tile = try pyramid.tile(level: level, column: column, row: row)
        readers.checkIn(pyramid, for: identity)
        return tile
    }

    private func open() throws -> TIFFPyramid {
        guard let opened = try TIFFPyramid(path: path, options: options), opened.levelSizes == nativeLevels.map(\.size) else {
            throw ImageDecodingError.corrupt(reason: "the TIFF pyramid changed while it was being read")
        }
        return opened
    }
}

/// Idle `TIFFPyramid` readers, a few per file, so that concurrent reads use handles of their own
/// and none reopens the file for a tile. Files are dropped least recently used first.
public final class TIFFReaderPool: Sendable {
    /// A reader moved between threads whole: taken out under the pool's lock, used by the one
    /// thread that took it, and put back after.
    private final class Reader: @unchecked Sendable {
        let pyramid: TIFFPyramid
        init(_ pyramid: TIFFPyramid) { self.pyramid = pyramid }
    }

    private let idle: Locked<LRUCache<FileIdentity, [Reader]>>
    private let readersPerFile: Int

    /// - Parameters:
    ///   - fileLimit: files whose idle readers are kept.
    ///   - readersPerFile: readers kept open per file between reads (the worker count).
    public init(fileLimit: Int = 256, readersPerFile: Int) {
        idle = Locked(LRUCache(costLimit: fileLimit))
        self.readersPerFile = max(1, readersPerFile)
    }

    fileprivate func checkOut(_ identity: FileIdentity) throws -> TIFFPyramid? {
        idle.withLock { cache in
            guard var readers = cache.value(for: identity), let reader = readers.popLast() else { return nil }
            _ = cache.insert(readers, for: identity, cost: 1)
            return reader.pyramid
        }
    }

    fileprivate func checkIn(_ pyramid: TIFFPyramid, for identity: FileIdentity) {
        idle.withLock { cache in
            var readers = cache.peek(identity) ?? []
            if readers.count < readersPerFile { readers.append(Reader(pyramid)) }
            _ = cache.insert(readers, for: identity, cost: 1)
        }
    }
}
