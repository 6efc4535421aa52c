import Foundation

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

/// Finished strips by (file identity, request), least recently used dropped first once their
/// decoded bytes pass the limit. Owned by `FrameStripGenerator`'s actor.
struct FrameStripCache {
    private struct Key: Hashable {
        let file: FileIdentity
        let request: FrameStripRequest
    }

    let byteLimit: Int
    private var entries: [Key: FrameStrip] = [:]
    private var order: [Key] = []
    private var bytes = 0

    init(byteLimit: Int) { self.byteLimit = byteLimit }

    mutating func strip(for file: FileIdentity, request: FrameStripRequest) -> FrameStrip? {
        let key = Key(file: file, request: request)
        guard let strip = entries[key] else { return nil }
        order.removeAll { $0 == key }
        order.append(key)
        return strip
    }

    mutating func insert(_ strip: FrameStrip, for file: FileIdentity) {
        let key = Key(file: file, request: strip.request)
        guard strip.byteCount <= byteLimit, entries[key] == nil else { return }
        while bytes + strip.byteCount > byteLimit, let oldest = order.first {
            order.removeFirst()
            bytes -= entries.removeValue(forKey: oldest)?.byteCount ?? 0
        }
        entries[key] = strip
        order.append(key)
        bytes += strip.byteCount
    }
}
