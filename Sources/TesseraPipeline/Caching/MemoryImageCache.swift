import Foundation
import TesseraCore

/// The default ``ImageCaching``: strict least-recently-used by cost, where an image's cost is its
/// memory (`bytesPerRow × height`). Reads and writes are synchronous and take a lock briefly, so a
/// hit costs a dictionary lookup and a list splice.
public final class MemoryImageCache: ImageCaching, @unchecked Sendable {
    // @unchecked: all state is touched only under `lock`.
    /// Most bytes held in total.
    public let costLimit: Int
    /// Most images held.
    public let countLimit: Int
    /// Images costing more than this are not kept (10% of ``costLimit`` by default), so one huge
    /// image cannot flush everything else.
    public let entryCostLimit: Int

    private final class Node {
        let key: String
        var image: PixelBuffer
        var cost: Int
        var newer: Node?
        weak var older: Node?
        init(key: String, image: PixelBuffer) {
            self.key = key
            self.image = image
            self.cost = image.byteCount
        }
    }

    private let lock = NSLock()
    private var nodes: [String: Node] = [:]
    private var oldest: Node?   // evicted first
    private var newest: Node?
    private var cost = 0

    /// Bytes held now; never above ``costLimit``, even while an image is being stored.
    public var totalCost: Int { lock.withLock { cost } }

    /// 15% of physical memory, at most 512 MiB.
    public static var defaultCostLimit: Int {
        min(Int(Double(ProcessInfo.processInfo.physicalMemory) * 0.15), 512 << 20)
    }

    public init(costLimit: Int = MemoryImageCache.defaultCostLimit, countLimit: Int = 1000, entryCostLimit: Int? = nil) {
        self.costLimit = costLimit
        self.countLimit = countLimit
        self.entryCostLimit = entryCostLimit ?? costLimit / 10
    }

    public var count: Int { lock.withLock { nodes.count } }

    public func image(for key: String) -> PixelBuffer? {
        lock.withLock {
            guard let node = nodes[key] else { return nil }
            unlink(node)
            append(node)
            return node.image
        }
    }

    public func store(_ image: PixelBuffer, for key: String) {
        guard image.byteCount <= entryCostLimit else { return }
        lock.withLock {
            if let existing = nodes[key] {
                unlink(existing)
                cost -= existing.cost
                nodes[key] = nil
            }
            let node = Node(key: key, image: image)
            // Make room first, so the total never exceeds the limit.
            while cost + node.cost > costLimit || nodes.count + 1 > countLimit, let victim = oldest {
                unlink(victim)
                nodes[victim.key] = nil
                cost -= victim.cost
            }
            nodes[key] = node
            append(node)
            cost += node.cost
        }
    }

    public func removeImage(for key: String) {
        lock.withLock {
            guard let node = nodes.removeValue(forKey: key) else { return }
            unlink(node)
            cost -= node.cost
        }
    }

    public func removeAll() {
        lock.withLock {
            nodes.removeAll()
            oldest = nil
            newest = nil
            cost = 0
        }
    }

    /// Keys from least to most recently used (for tests and diagnostics).
    public var keysByRecency: [String] {
        lock.withLock {
            var keys: [String] = []
            var node = oldest
            while let current = node {
                keys.append(current.key)
                node = current.newer
            }
            return keys
        }
    }

    private func append(_ node: Node) {
        node.older = newest
        node.newer = nil
        newest?.newer = node
        newest = node
        if oldest == nil { oldest = node }
    }

    private func unlink(_ node: Node) {
        if oldest === node { oldest = node.newer }
        if newest === node { newest = node.older }
        node.older?.newer = node.newer
        node.newer?.older = node.older
        node.newer = nil
        node.older = nil
    }
}
