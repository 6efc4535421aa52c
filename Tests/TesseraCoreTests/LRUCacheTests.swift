import TesseraCore
import Testing

@Suite("The one LRU cache")
struct LRUCacheTests {
    @Test("a read makes an entry the most recent; the least recent goes first when cost runs out")
    func evictionByCost() {
        var cache = LRUCache<String, Int>(costLimit: 300)
        cache.insert(1, for: "a", cost: 100)
        cache.insert(2, for: "b", cost: 100)
        cache.insert(3, for: "c", cost: 100)
        let read = cache.value(for: "a")
        #expect(read == 1)
        cache.insert(4, for: "d", cost: 100)
        #expect(cache.keysByRecency == ["c", "a", "d"])
        #expect(cache.peek("b") == nil && cache.totalCost == 300)
        // peek leaves recency alone.
        #expect(cache.peek("c") == 3)
        cache.insert(5, for: "e", cost: 150)
        #expect(cache.keysByRecency == ["d", "e"] && cache.totalCost == 250)
    }

    @Test("the count limit evicts too; replacing a key updates its cost and recency")
    func countAndReplace() {
        var cache = LRUCache<Int, String>(costLimit: 1000, countLimit: 2)
        cache.insert("x", for: 1, cost: 10)
        cache.insert("y", for: 2, cost: 10)
        cache.insert("x2", for: 1, cost: 50)
        #expect(cache.keysByRecency == [2, 1] && cache.totalCost == 60 && cache.peek(1) == "x2")
        cache.insert("z", for: 3, cost: 1)
        #expect(cache.keysByRecency == [1, 3] && cache.count == 2)
    }

    @Test("a value above the entry limit is refused and drops the old value for its key")
    func entryLimit() {
        var cache = LRUCache<String, Int>(costLimit: 1000, entryCostLimit: 100)
        let kept = cache.insert(1, for: "a", cost: 100)
        let tooBig = cache.insert(2, for: "a", cost: 101)
        #expect(kept && !tooBig)
        #expect(cache.isEmpty && cache.totalCost == 0)
        let negative = cache.insert(3, for: "b", cost: -1)
        #expect(!negative)
        #expect(LRUCache<String, Int>(costLimit: 10, entryCostLimit: 50).entryCostLimit == 10)
    }

    @Test("slots are reused: many inserts and removals keep the list and the totals consistent")
    func churn() {
        var cache = LRUCache<Int, Int>(costLimit: 64)
        var model: [Int] = []  // keys, least recent first
        var generator = SystemRandomNumberGenerator()
        for step in 0..<5000 {
            let key = Int.random(in: 0..<40, using: &generator)
            switch step % 3 {
            case 0:
                cache.insert(step, for: key, cost: 4)
                model.removeAll { $0 == key }
                model.append(key)
                if model.count > 16 { model.removeFirst() }
            case 1:
                if cache.value(for: key) != nil {
                    model.removeAll { $0 == key }
                    model.append(key)
                }
            default:
                cache.removeValue(for: key)
                model.removeAll { $0 == key }
            }
            #expect(cache.keysByRecency == model)
            #expect(cache.totalCost == 4 * model.count)
        }
        cache.removeAll()
        #expect(cache.isEmpty && cache.keysByRecency.isEmpty && cache.totalCost == 0)
    }
}
