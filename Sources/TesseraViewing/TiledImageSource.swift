import FoundationEssentials
public import TesseraCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A pyramid a viewer can read tile by tile. Levels are numbered by reduction, as in
/// ``TileLayout``: 0 is full resolution, each next level half the previous (rounded up).
public protocol TiledImageSource: Sendable {
    /// The geometry: full size, tile spans with overlap, level count.
    var layout: any TileLayout { get }
    /// The tile's pixels, exactly its column and row spans (overlap included).
    func tile(reduction: Int, column: Int, row: Int) async throws -> PixelBuffer
}

extension TiledImageSource {
    /// The full-resolution size, in pixels.
    public var imageSize: PixelSize { layout.imageSize }
    /// Levels in the pyramid, full resolution included.
    public var levelCount: Int { layout.levelCount }
}

/// Why a pyramid could not be opened.
public enum TiledSourceError: TesseraError, Equatable {
    /// Neither a `.dzi` file nor an `info.json` was found.
    case notAPyramid(String)
    /// The descriptor is malformed.
    case invalidDescriptor(String)
    /// A tile of a complete pyramid is gone (removed behind its back: a lifecycle rule, a cleaner).
    case missingTile
    /// A tile could not be read (the C library's error number).
    case unreadableTile(Int32)

    public var description: String {
        switch self {
        case .notAPyramid(let path): "\(path) is not a .dzi, an info.json or a directory holding one"
        case .invalidDescriptor(let reason): "invalid pyramid descriptor: \(reason)"
        case .missingTile: "a stored tile is missing from the pyramid"
        case .unreadableTile(let code): "a stored tile could not be read: \(String(cString: strerror(code)))"
        }
    }

    /// `ErrorCategory.notFound` for no pyramid, `ErrorCategory.corrupt` for a bad descriptor,
    /// `ErrorCategory.io` for a tile that is missing or cannot be read.
    public var category: ErrorCategory {
        switch self {
        case .notAPyramid: .notFound
        case .invalidDescriptor: .corrupt
        case .missingTile, .unreadableTile: .io
        }
    }
}
