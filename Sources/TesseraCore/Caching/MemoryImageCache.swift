import FoundationEssentials

/// The default ``ImageCaching``: ``LRUCache`` behind a lock, by cost, where an image's cost
/// is its memory (`bytesPerRow × height`). Reads and writes are synchronous and take the lock
/// briefly, so a hit costs a dictionary lookup and a list splice.
public final class MemoryImageCache: ImageCaching, Sendable {
    private let entries: Locked<LRUCache<String, PixelBuffer>>

    /// Most bytes held in total.
    public let costLimit: Int
    /// Most images held.
    public let countLimit: Int
    /// Images costing more than this are not kept (10% of ``costLimit`` by default), so one huge
    /// image cannot flush everything else.
    public let entryCostLimit: Int

    /// Bytes held now; never above ``costLimit``, even while an image is being stored.
    public var totalCost: Int { entries.withLock { $0.totalCost } }

    /// 15% of physical memory, at most 512 MiB.
    public static var defaultCostLimit: Int {
        min(Int(Double(ProcessInfo.processInfo.physicalMemory) * 0.15), 512 << 20)
    }

    /// - Parameters:
    ///   - costLimit: the most bytes of pixels held; ``defaultCostLimit`` by default.
    ///   - countLimit: the most images held.
    ///   - entryCostLimit: the most bytes one image may take and still be kept; nil is a tenth of
    ///     `costLimit`.
    public init(costLimit: Int = MemoryImageCache.defaultCostLimit, countLimit: Int = 1000, entryCostLimit: Int? = nil) {
        let cache = LRUCache<String, PixelBuffer>(
            costLimit: costLimit, countLimit: countLimit, entryCostLimit: entryCostLimit ?? costLimit / 10)
        self.costLimit = cache.costLimit
        self.countLimit = cache.countLimit
        self.entryCostLimit = cache.entryCostLimit
        entries = Locked(cache)
    }

    /// Images held now.
    public var count: Int { entries.withLock { $0.count } }

    /// The image for `key`, now the most recently used; nil when it was never stored or was evicted.
    public func image(for key: String) -> PixelBuffer? { entries.withLock { $0.value(for: key) } }

    /// Keeps `image` at its byte cost, evicting the least recently used images to make room; an image
    /// over ``entryCostLimit`` is not kept (and any old image for `key` is dropped).
    public func store(_ image: PixelBuffer, for key: String) {
        entries.withLock { _ = $0.insert(image, for: key, cost: image.byteCount) }
    }

    public func removeImage(for key: String) { entries.withLock { _ = $0.removeValue(for: key) } }

    public func removeAll() { entries.withLock { $0.removeAll() } }

    /// Keys from least to most recently used (for tests and diagnostics).
    public var keysByRecency: [String] { entries.withLock { $0.keysByRecency } }
}
