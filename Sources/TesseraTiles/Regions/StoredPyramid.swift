public import FoundationEssentials
import TesseraCodecs
public import TesseraCore
public import TesseraStorage
public import TesseraViewing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A complete pyramid in a directory or under a prefix of an object store, read tile by tile: what
/// the builder wrote (``PyramidBuilder``, `tessera tile`, a server's cache). A viewer reads its
/// tiles decoded (`TiledImageSource`); a server answers aligned tiles with their stored bytes
/// (``encodedTile(reduction:column:row:)``) and composes other regions from decoded ones
/// (``TileComposer``).
public struct StoredPyramid: TiledImageSource {
    /// Where a pyramid's files are.
    public enum Location: Sendable {
        /// Tiles are files under this directory.
        case directory(String)
        /// Tiles are objects under `{prefix}/` in `store`.
        case objects(any ObjectStoring, prefix: String)
    }

    /// The directory or the store and prefix the pyramid is in.
    public let location: Location
    public let layout: any TileLayout
    /// The tiles' file extension (`jpg`, `jpeg`, `png`…), as the layout names their paths.
    public let fileExtension: String
    /// Where files are read (they block).
    public let executor: WorkExecutor

    /// A pyramid at `location` laid out by `layout`, its tiles named with `fileExtension`. Nothing is
    /// read until a tile is asked for, and the pyramid is taken to be complete.
    public init(location: Location, layout: any TileLayout, fileExtension: String, executor: WorkExecutor = .shared) {
        self.location = location
        self.layout = layout
        self.fileExtension = fileExtension
        self.executor = executor
    }

    /// The tile's path inside the pyramid.
    public func tileRelativePath(reduction: Int, column: Int, row: Int) -> String {
        layout.tilePath(reduction: reduction, column: column, row: row, fileExtension: fileExtension)
    }

    /// The tile file's absolute path, for a pyramid in a directory; nil for one in a store.
    public func tilePath(reduction: Int, column: Int, row: Int) -> String? {
        guard case .directory(let directory) = location else { return nil }
        return directory + "/" + tileRelativePath(reduction: reduction, column: column, row: row)
    }

    /// The stored tile's encoded bytes: a file read on ``executor``, or a GET from the store.
    /// - Throws: `TiledSourceError.missingTile` when the pyramid lacks it (only complete
    ///   pyramids are opened, so something removed it: an I/O failure, not the caller's), or the
    ///   store's error.
    public func encodedTile(reduction: Int, column: Int, row: Int) async throws -> Data {
        switch location {
        case .directory:
            let path = tilePath(reduction: reduction, column: column, row: row)!
            return try await executor.run(priority: .high) { _ in try Self.read(path) }
        case .objects(let store, let prefix):
            do {
                return try await store.get(prefix + "/" + tileRelativePath(reduction: reduction, column: column, row: row))
            } catch ObjectStorageError.notFound {
                throw TiledSourceError.missingTile
            }
        }
    }

    /// The tile decoded.
    public func tile(reduction: Int, column: Int, row: Int) async throws -> PixelBuffer {
        let bytes = try await encodedTile(reduction: reduction, column: column, row: row)
        return try await executor.run { _ in try ImageDecoder().decode(.data(bytes)).pixels }
    }

    /// A whole file, with a message that names no path.
    private static func read(_ path: String) throws -> Data {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw errno == ENOENT ? TiledSourceError.missingTile : TiledSourceError.unreadableTile(errno) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw TiledSourceError.unreadableTile(errno) }
        var data = Data(count: Int(info.st_size))
        var done = 0
        var failure: Int32 = 0
        data.withUnsafeMutableBytes { space in
            while done < space.count {
                let count = Glibc.read(descriptor, space.baseAddress! + done, space.count - done)
                if count < 0, errno == EINTR { continue }
                if count < 0 { failure = errno }
                if count <= 0 { break }
                done += count
            }
        }
        guard failure == 0 else { throw TiledSourceError.unreadableTile(failure) }
        guard done == data.count else { throw TiledSourceError.unreadableTile(EIO) }
        return data
    }
}
