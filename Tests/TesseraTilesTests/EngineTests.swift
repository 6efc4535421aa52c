import Foundation
import TesseraCore
import TesseraViewing
import Testing

@testable import TesseraTiles

/// A synthetic pyramid: every tile a flat colour, some tiles failing a set number of times, and
/// loads that can be held at a gate.
actor FakeSource: TiledImageSource {
    nonisolated let layout: any TileLayout
    private var failuresLeft: [TileID: Int]
    private var held = false
    private var gate: [CheckedContinuation<Void, Never>] = []
    private(set) var requested: [TileID] = []
    private(set) var cancelled: [TileID] = []

    init(size: PixelSize = PixelSize(width: 4096, height: 4096), failing: [TileID: Int] = [:], held: Bool = false) {
        layout = DeepZoomLayout(imageSize: size, name: "fake", tileSize: 254, overlap: 1)
        failuresLeft = failing
        self.held = held
    }

    nonisolated func tile(reduction: Int, column: Int, row: Int) async throws -> PixelBuffer {
        try await load(TileID(reduction: reduction, column: column, row: row))
    }

    private func load(_ id: TileID) async throws -> PixelBuffer {
        requested.append(id)
        if held { await withCheckedContinuation { gate.append($0) } }
        if Task.isCancelled {
            cancelled.append(id)
            throw CancellationError()
        }
        if let left = failuresLeft[id], left > 0 {
            failuresLeft[id] = left - 1
            throw TiledSourceError.invalidDescriptor("synthetic failure")
        }
        let columns = layout.columnSpans(reduction: id.reduction)[id.column]
        let rows = layout.rowSpans(reduction: id.reduction)[id.row]
        return PixelBuffer(
            width: columns.count, height: rows.count, format: .rgb8,
            bytes: [UInt8](repeating: UInt8(100 + id.reduction * 10), count: columns.count * rows.count * 3))
    }

    func release() {
        held = false
        gate.forEach { $0.resume() }
        gate.removeAll()
    }

    var waiting: Int { gate.count }
}

func settle(_ condition: @escaping () async -> Bool) async {
    for _ in 0..<500 where !(await condition()) { try? await Task.sleep(for: .milliseconds(10)) }
}

@Suite("Tiled view engine")
struct EngineTests {
    let view = Viewport(size: PointSize(width: 400, height: 300), zoom: 1, center: PixelPoint(x: 2048, y: 2048))

    @Test("loads the visible tiles centre-out, then the ring at low priority, and fills the view")
    func loadsVisible() async throws {
        let source = FakeSource()
        let engine = TiledViewEngine(source: source, viewport: view)
        let needed = await engine.neededTiles
        let visible = needed.filter { $0.1 == .normal }.map(\.0)
        #expect(visible == source.layout.tiles(reduction: 0, covering: view.visibleRect))
        #expect(needed.contains { $0.1 == .low })
        #expect(needed.first?.1 == .high)  // the single-tile placeholder level first
        await engine.start()
        await engine.waitUntilVisibleTilesLoaded()
        let result = await engine.render()
        #expect(result.placeholderPixelCount == 0)
        #expect(result.pixels.bytes.allSatisfy { $0 == 100 })
    }

    @Test("panning away cancels the loads that left the view")
    func cancellation() async throws {
        let source = FakeSource(held: true)
        let engine = TiledViewEngine(source: source, viewport: view)
        await engine.start()
        await settle { await source.waiting == 6 }
        var moved = view
        moved.center = PixelPoint(x: 200, y: 200)  // far away: nothing in common
        await engine.update(moved)
        await source.release()
        await engine.waitUntilVisibleTilesLoaded()
        let cancelled = await source.cancelled
        #expect(!cancelled.isEmpty)
        let first = source.layout.tiles(reduction: 0, covering: view.visibleRect)
        #expect(cancelled.allSatisfy { first.contains($0) || $0.reduction == 0 })
        #expect(await engine.render().placeholderPixelCount == 0)
    }

    @Test("a failing tile is retried with backoff until it loads")
    func retry() async throws {
        let target = TileID(reduction: 0, column: 8, row: 8)
        let source = FakeSource(failing: [target: 3])
        let engine = TiledViewEngine(source: source, viewport: view, maximumBackoff: 0.05)
        var failures: [Int] = []
        let listener = Task {
            for await event in engine.events {
                if case .failed(let id, let attempt, _) = event, id == target { failures.append(attempt) }
                if case .loaded(let id) = event, id == target { break }
            }
            return failures
        }
        await engine.start()
        await engine.waitUntilVisibleTilesLoaded()
        #expect(await listener.value == [1, 2, 3])
        #expect(engine.cachedTile(target) != nil)
        #expect(await source.requested.filter { $0 == target }.count == 4)
        await engine.finish()
    }

    @Test("the tile cache stays within its byte budget however far the view travels")
    func cacheBudget() async throws {
        let source = FakeSource(size: PixelSize(width: 20000, height: 4000))
        let budget = 2 << 20
        let engine = TiledViewEngine(source: source, viewport: view, cacheBudget: budget)
        var moving = view
        for step in 0..<20 {
            moving.center = PixelPoint(x: 300 + Double(step) * 1000, y: 2000)
            await engine.update(moving)
            await engine.waitUntilVisibleTilesLoaded()
            #expect(engine.cache.totalCost <= budget)
        }
        #expect(await source.requested.count > budget / (256 * 256 * 3))  // far more tiles than fit
    }
}
