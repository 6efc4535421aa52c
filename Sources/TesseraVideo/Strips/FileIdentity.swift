import FoundationEssentials
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Identifies a file's contents without reading them: a changed, replaced or touched file gets a
/// new identity, so a cached strip is never served for different bytes.
struct FileIdentity: Hashable, Sendable {
    let path: String
    let device: UInt64
    let inode: UInt64
    let size: Int64
    let modified: Int64

    init(path: String) throws(VideoError) {
        var info = stat()
        guard stat(path, &info) == 0 else { throw .unreadable(reason: String(cString: strerror(errno))) }
        self.path = path
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
    }
}

/// A finished strip's cache key: the file's identity and the request.
struct FrameStripKey: Hashable {
    let file: FileIdentity
    let request: FrameStripRequest
}
