import Foundation
import TesseraCore
import TesseraStorage
import Testing

@testable import TesseraPipeline

@Suite("Caches")
struct CacheTests {
    func image(_ bytes: Int) -> PixelBuffer { PixelBuffer(width: bytes, height: 1, format: .gray8) }

    @Test("disk cache files are named by the SHA-256 of the key (libcrypto, loaded on first use)")
    func diskCacheNames() {
        // FIPS 180-2's test vectors.
        #expect(DiskCache.fileName(for: "abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(DiskCache.fileName(for: "") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(DiskCache.fileName(for: String(repeating: "a", count: 1_000)).count == 64)
        #expect(SHA256Digest.unavailableReason == nil)
    }

    @Test("memory cache evicts least recently used first when over its cost limit")
    func memoryCostLRU() {
        let cache = MemoryImageCache(costLimit: 300, countLimit: 100, entryCostLimit: 300)
        cache.store(image(100), for: "a")
        cache.store(image(100), for: "b")
        cache.store(image(100), for: "c")
        _ = cache.image(for: "a")  // a is now the most recent
        cache.store(image(100), for: "d")  // over 300: b goes
        #expect(cache.keysByRecency == ["c", "a", "d"])
        #expect(cache.totalCost == 300)
    }

    @Test("memory cache respects its count limit and its per-entry limit")
    func memoryCountAndEntryLimits() {
        let cache = MemoryImageCache(costLimit: 10_000, countLimit: 2)
        cache.store(image(10), for: "a")
        cache.store(image(10), for: "b")
        cache.store(image(10), for: "c")
        #expect(cache.keysByRecency == ["b", "c"])
        cache.store(image(1001), for: "huge")  // over 10% of the total
        #expect(cache.image(for: "huge") == nil)
        #expect(MemoryImageCache(costLimit: 512 << 20).entryCostLimit == (512 << 20) / 10)
        #expect(MemoryImageCache.defaultCostLimit <= 512 << 20)
    }

    @Test("disk cache stays under its size limit at every write, evicting least recently used")
    func diskLimit() async {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = TestClock()
        let cache = DiskCache(directory: directory, sizeLimit: 1000, now: clock.now)
        for name in ["a", "b", "c"] {
            await cache.store(Data(count: 300), for: name, validators: HTTPValidators(), maxAge: nil)
            clock.advance(1)
        }
        _ = await cache.lookup("a")
        clock.advance(1)
        await cache.store(Data(count: 300), for: "d", validators: HTTPValidators(), maxAge: nil)
        #expect(await cache.lookup("b") == nil)
        #expect(await cache.lookup("a") != nil)
        #expect(await cache.size <= 1000)
        let onDisk = try! FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { !$0.hasSuffix(".meta") && $0 != "index.json" }
            .reduce(0) { $0 + ((try? FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent($1).path)[.size] as? Int) ?? 0) }
        #expect(onDisk <= 1000)
        await cache.store(Data(count: 2000), for: "too big", validators: HTTPValidators(), maxAge: nil)
        #expect(await cache.lookup("too big") == nil)
    }

    @Test("entries expire after the time to live, and max-age marks them stale before that")
    func expiry() async {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = TestClock()
        let cache = DiskCache(directory: directory, timeToLive: 100, now: clock.now)
        await cache.store(Data(count: 10), for: "k", validators: HTTPValidators(etag: "e"), maxAge: 10)
        #expect(await cache.lookup("k")?.isFresh == true)
        clock.advance(11)
        #expect(await cache.lookup("k")?.isFresh == false)
        await cache.refresh("k", validators: HTTPValidators(), maxAge: 10)
        #expect(await cache.lookup("k")?.isFresh == true)
        clock.advance(101)
        #expect(await cache.lookup("k") == nil)
    }

    @Test("the index survives restarts and is rebuilt from metadata when lost; leftovers are cleared")
    func indexRebuild() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = DiskCache(directory: directory)
        await cache.store(Data(count: 50), for: "x", validators: HTTPValidators(etag: "v"), maxAge: nil)
        #expect(await DiskCache(directory: directory).lookup("x")?.validators.etag == "v")
        try FileManager.default.removeItem(at: directory.appendingPathComponent("index.json"))
        try Data("partial".utf8).write(to: directory.appendingPathComponent(".\(DiskCache.fileName(for: "y")).1234.tmp"))
        try Data("keep me".utf8).write(to: directory.appendingPathComponent("notes.txt"))
        let rebuilt = DiskCache(directory: directory)
        #expect(await rebuilt.lookup("x")?.byteCount == 50)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(!files.contains { $0.hasSuffix(".tmp") })
        #expect(files.contains("notes.txt"))
    }

    @Test("entries stored after the index was last saved survive a restart")
    func unsavedEntriesSurvive() async {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = DiskCache(directory: directory)
        for index in 0..<10 { await cache.store(Data(count: 10 + index), for: "k\(index)", validators: HTTPValidators(), maxAge: nil) }
        let reopened = DiskCache(directory: directory)
        #expect(await reopened.count == 10)
        #expect(await reopened.lookup("k9")?.byteCount == 19)
    }

    @Test("Cache-Control parsing")
    func cacheControl() {
        #expect(FetchedData.cacheControl("public, max-age=60").maxAge == 60)
        #expect(FetchedData.cacheControl("no-store").noStore)
        #expect(FetchedData.cacheControl("no-cache").maxAge == 0)
        #expect(FetchedData.cacheControl(nil).maxAge == nil)
        // delta-seconds are digits: anything else makes the response stale (FuzzCacheHeaders found
        // `max-age=nan` losing the stored response); a huge value is capped at 2³¹.
        #expect(FetchedData.cacheControl("max-age=\"90\"").maxAge == 90)
        for invalid in ["nan", "inf", "-5", "1e3", "+60", "6.5", "٣"] {
            #expect(FetchedData.cacheControl("max-age=\(invalid)").maxAge == 0, "\(invalid)")
        }
        #expect(FetchedData.cacheControl("max-age=99999999999999999999").maxAge == TimeInterval(1 << 31))
    }

    @Test("cache keys separate sizes, content modes and processors")
    func keys() {
        let url = URL(string: "https://example.com/a.jpg")!
        let base = ImageRequest(url: url, target: .size(PointSize(width: 100, height: 100), scale: .x2))
        var fill = base
        fill.contentMode = .fill
        var blurred = base
        blurred.processors = [GaussianBlurProcessor(radius: 2)]
        let keys = [base.imageKey, fill.imageKey, blurred.imageKey, ImageRequest(url: url).imageKey]
        #expect(Set(keys).count == 4)
        #expect(Set([base.dataKey, fill.dataKey, blurred.dataKey]).count == 1)
    }
}

/// A clock tests move by hand.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current = Date(timeIntervalSince1970: 1_000_000)
    var now: @Sendable () -> Date { { [self] in lock.withLock { current } } }
    func advance(_ seconds: TimeInterval) { lock.withLock { current.addTimeInterval(seconds) } }
}
