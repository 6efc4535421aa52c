#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What makes a file the same file, without reading it: device, inode, size and modification time
/// (ns). A changed, replaced or touched file gets a new identity, so whatever is keyed by it (a
/// frame strip, a pyramid, a decoded image, an ETag) is made again rather than served stale.
public struct FileIdentity: Sendable, Hashable, CustomStringConvertible {
    /// The device the file is on (`st_dev`).
    public var device: UInt64
    /// The file's inode number on that device (`st_ino`).
    public var inode: UInt64
    /// The file's size in bytes.
    public var byteCount: Int
    /// Modification time in nanoseconds since 1970.
    public var modificationNanoseconds: Int64

    /// An identity from its four parts; ``init(path:)`` reads them from a file.
    public init(device: UInt64, inode: UInt64, byteCount: Int, modificationNanoseconds: Int64) {
        self.device = device
        self.inode = inode
        self.byteCount = byteCount
        self.modificationNanoseconds = modificationNanoseconds
    }

    /// The identity of the regular file at `path`, or nil when it is missing or not a regular file.
    public init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        self.init(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), byteCount: Int(info.st_size),
            modificationNanoseconds: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
    }

    /// Seconds since 1970 of the last modification (what `Last-Modified` states).
    public var modificationSeconds: Int64 { modificationNanoseconds / 1_000_000_000 }

    /// A name for the derivative cache: the four numbers in hex, safe as one path component.
    public var description: String {
        [device, inode, UInt64(byteCount), UInt64(bitPattern: modificationNanoseconds)]
            .map { String($0, radix: 16) }.joined(separator: "-")
    }
}
