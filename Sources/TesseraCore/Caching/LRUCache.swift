/// Values by key, least recently used dropped first once their total cost or count passes a limit.
/// The one LRU in Tessera: the pipeline's memory cache, the viewer's tile cache and the frame-strip
/// cache are all this type.
///
/// A value type with O(1) lookups, inserts and evictions (a dictionary into an array-backed doubly
/// linked list, no per-entry objects), so an actor can own one directly and a class can put one
/// behind a lock. Costs are whatever unit the owner chooses — bytes for bitmaps.
public struct LRUCache<Key: Hashable, Value> {
    /// Most total cost held; never exceeded, not even while a value is being inserted.
    public let costLimit: Int
    /// Most entries held.
    public let countLimit: Int
    /// A value costing more than this is not kept, so one huge value cannot flush everything else.
    public let entryCostLimit: Int

    fileprivate struct Entry {
        var key: Key
        var value: Value
        var cost: Int
        var older: Int?
        var newer: Int?
    }

    private var indices: [Key: Int] = [:]
    private var entries: [Entry?] = []
    private var freeSlots: [Int] = []
    private var oldest: Int?  // evicted first
    private var newest: Int?

    /// Cost held now.
    public private(set) var totalCost = 0

    /// - Parameters:
    ///   - costLimit: most total cost held.
    ///   - countLimit: most entries held.
    ///   - entryCostLimit: the most one value may cost and still be kept; nil means `costLimit`.
    public init(costLimit: Int, countLimit: Int = .max, entryCostLimit: Int? = nil) {
        self.costLimit = max(0, costLimit)
        self.countLimit = max(0, countLimit)
        self.entryCostLimit = min(entryCostLimit ?? costLimit, costLimit)
    }

    /// Entries held now.
    public var count: Int { indices.count }
    /// Whether the cache holds no entry.
    public var isEmpty: Bool { indices.isEmpty }

    /// The value for `key`, now the most recently used.
    public mutating func value(for key: Key) -> Value? {
        guard let index = indices[key] else { return nil }
        unlink(index)
        append(index)
        return entries[index]?.value
    }

    /// The value for `key`, without touching its recency.
    public func peek(_ key: Key) -> Value? {
        indices[key].flatMap { entries[$0]?.value }
    }

    /// Stores `value` for `key` as the most recently used, replacing any value there, after dropping
    /// the least recently used entries until it fits.
    /// - Returns: false, keeping nothing (and removing any old value for `key`), when `cost` is above
    ///   ``entryCostLimit`` or negative.
    @discardableResult
    public mutating func insert(_ value: Value, for key: Key, cost: Int) -> Bool {
        removeValue(for: key)
        guard cost >= 0, cost <= entryCostLimit, countLimit > 0 else { return false }
        // Make room first, so the total never exceeds the limit.
        while totalCost + cost > costLimit || indices.count + 1 > countLimit, let victim = oldest {
            remove(at: victim)
        }
        let entry = Entry(key: key, value: value, cost: cost, older: nil, newer: nil)
        let index: Int
        if let free = freeSlots.popLast() {
            index = free
            entries[index] = entry
        } else {
            index = entries.count
            entries.append(entry)
        }
        indices[key] = index
        append(index)
        totalCost += cost
        return true
    }

    /// Removes and returns the value for `key`.
    @discardableResult
    public mutating func removeValue(for key: Key) -> Value? {
        guard let index = indices[key] else { return nil }
        return remove(at: index)
    }

    /// Drops every entry; ``totalCost`` is 0 afterwards. The limits stay.
    public mutating func removeAll() {
        indices.removeAll()
        entries.removeAll()
        freeSlots.removeAll()
        oldest = nil
        newest = nil
        totalCost = 0
    }

    /// Keys from least to most recently used (for tests and diagnostics).
    public var keysByRecency: [Key] {
        var keys: [Key] = []
        keys.reserveCapacity(indices.count)
        var index = oldest
        while let current = index, let entry = entries[current] {
            keys.append(entry.key)
            index = entry.newer
        }
        return keys
    }

    @discardableResult
    private mutating func remove(at index: Int) -> Value? {
        unlink(index)
        guard let entry = entries[index] else { return nil }
        entries[index] = nil
        freeSlots.append(index)
        indices[entry.key] = nil
        totalCost -= entry.cost
        return entry.value
    }

    private mutating func append(_ index: Int) {
        entries[index]?.older = newest
        entries[index]?.newer = nil
        if let newest { entries[newest]?.newer = index }
        newest = index
        if oldest == nil { oldest = index }
    }

    private mutating func unlink(_ index: Int) {
        guard let entry = entries[index] else { return }
        if oldest == index { oldest = entry.newer }
        if newest == index { newest = entry.older }
        if let older = entry.older { entries[older]?.newer = entry.newer }
        if let newer = entry.newer { entries[newer]?.older = entry.older }
        entries[index]?.older = nil
        entries[index]?.newer = nil
    }
}

extension LRUCache: Sendable where Key: Sendable, Value: Sendable {}
extension LRUCache.Entry: Sendable where Key: Sendable, Value: Sendable {}
