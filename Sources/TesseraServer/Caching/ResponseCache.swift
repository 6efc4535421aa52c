import NIOCore
import TesseraCore

/// Encoded responses (tiles, regions, info.json) by source identity and canonical request, limited
/// by bytes: what makes a warm server answer from memory, as nginx answers from the page cache.
final class ResponseCache: Sendable {
    private let entries: Locked<LRUCache<String, ByteBuffer>>

    /// - Parameter byteLimit: the most bytes held; one response may take at most an eighth of it.
    init(byteLimit: Int) {
        entries = Locked(LRUCache(costLimit: byteLimit, entryCostLimit: byteLimit / 8))
    }

    func body(for key: String) -> ByteBuffer? { entries.withLock { $0.value(for: key) } }

    func store(_ body: ByteBuffer, for key: String) {
        entries.withLock { _ = $0.insert(body, for: key, cost: body.readableBytes + key.utf8.count) }
    }

    var byteCount: Int { entries.withLock { $0.totalCost } }
}
