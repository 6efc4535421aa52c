import FoundationEssentials
import TesseraCodecs
public import TesseraCore

/// A pyramid a viewer can read tile by tile. Levels are numbered by reduction, as in
/// ``TileLayout``: 0 is full resolution, each next level half the previous (rounded up).
public protocol TiledImageSource: Sendable {
    /// The geometry: full size, tile spans with overlap, level count.
    var layout: any TileLayout { get }
    /// The tile's pixels, exactly its column and row spans (overlap included).
    func tile(reduction: Int, column: Int, row: Int) async throws -> PixelBuffer
}

extension TiledImageSource {
    public var imageSize: PixelSize { layout.imageSize }
    public var levelCount: Int { layout.levelCount }
}

/// Why a pyramid could not be opened.
public enum TiledSourceError: TesseraError, Equatable {
    /// Neither a `.dzi` file nor an `info.json` was found.
    case notAPyramid(String)
    /// The descriptor is malformed.
    case invalidDescriptor(String)

    public var description: String {
        switch self {
        case .notAPyramid(let path): "\(path) is not a .dzi, an info.json or a directory holding one"
        case .invalidDescriptor(let reason): "invalid pyramid descriptor: \(reason)"
        }
    }

    public var category: ErrorCategory {
        switch self {
        case .notAPyramid: .notFound
        case .invalidDescriptor: .corrupt
        }
    }
}
