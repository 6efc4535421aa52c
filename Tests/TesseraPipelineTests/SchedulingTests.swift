import Foundation
import Testing
import TesseraCore
@testable import TesseraPipeline

/// A loader that waits at a gate until released, recording what it was asked and whether it saw
/// cancellation.
actor GatedLoader: DataLoading {
    private var order: [String] = []
    private var cancelled: [String] = []
    private var gate: CheckedContinuation<Void, Never>?
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private var open = false

    nonisolated func loadData(for url: URL, validators: HTTPValidators?) async throws -> FetchedData {
        try await load(url.lastPathComponent)
    }

    private func load(_ name: String) async throws -> FetchedData {
        order.append(name)
        if !open { await withCheckedContinuation { waiting.append($0) } }
        if Task.isCancelled {
            cancelled.append(name)
            throw CancellationError()
        }
        return FetchedData(outcome: .data(photo))
    }

    func release() {
        open = true
        waiting.forEach { $0.resume() }
        waiting.removeAll()
    }

    var started: [String] { order }
    var sawCancellation: [String] { cancelled }
    var waitingCount: Int { waiting.count }
}

func eventually(_ condition: @escaping () async -> Bool) async {
    for _ in 0..<500 where !(await condition()) { try? await Task.sleep(for: .milliseconds(10)) }
}

@Suite("Scheduling")
struct SchedulingTests {
    @Test("cancelling the only caller ends its wait at once and cancels the download")
    func cancellation() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let loader = GatedLoader()
        let pipeline = makePipeline(directory: directory, loader: loader)
        let task = Task { try await pipeline.image(for: ImageRequest(url: URL(string: "http://x/a.jpg")!)) }
        await eventually { await loader.waitingCount == 1 }
        task.cancel()
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
        await loader.release()
        await eventually { await loader.sawCancellation == ["a.jpg"] }
        #expect(await loader.sawCancellation == ["a.jpg"])
    }

    @Test("work goes on while any caller still waits for it")
    func partialCancellation() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let loader = GatedLoader()
        let pipeline = makePipeline(directory: directory, loader: loader)
        let request = ImageRequest(url: URL(string: "http://x/b.jpg")!, target: .maxPixelSize(10))
        let leaving = Task { try await pipeline.image(for: request) }
        let staying = Task { try await pipeline.image(for: request) }
        await eventually { await loader.waitingCount == 1 }
        leaving.cancel()
        let left = await leaving.result
        #expect(throws: CancellationError.self) { try left.get() }
        await loader.release()
        #expect(try await staying.value.pixels.size.longestSide == 10)
        #expect(await loader.sawCancellation.isEmpty)
    }

    @Test("a waiting download is raised when a more urgent caller joins it")
    func priorityRaise() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let loader = GatedLoader()
        let pipeline = makePipeline(directory: directory, loader: loader, downloads: 1)
        func load(_ name: String, _ priority: ImageRequest.Priority) -> Task<ImageResponse, any Error> {
            Task { try await pipeline.image(for: ImageRequest(url: URL(string: "http://x/\(name)")!, priority: priority)) }
        }
        let blocker = load("first.jpg", .normal)
        await eventually { await loader.started == ["first.jpg"] }
        let low = load("low.jpg", .low)
        await eventually { await pipeline.downloads.waitingCount == 1 }
        let normal = load("normal.jpg", .normal)
        await eventually { await pipeline.downloads.waitingCount == 2 }
        let urgent = load("low.jpg", .veryHigh)  // joins the low-priority download
        await eventually { await pipeline.downloads.waitingPriorities.contains(.veryHigh) }
        await loader.release()
        _ = try await (blocker.value, low.value, normal.value, urgent.value)
        #expect(await loader.started == ["first.jpg", "low.jpg", "normal.jpg"])
    }

    @Test("without the raise, the same queue runs in priority order: normal before low")
    func priorityOrder() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let loader = GatedLoader()
        let pipeline = makePipeline(directory: directory, loader: loader, downloads: 1)
        func load(_ name: String, _ priority: ImageRequest.Priority) -> Task<ImageResponse, any Error> {
            Task { try await pipeline.image(for: ImageRequest(url: URL(string: "http://x/\(name)")!, priority: priority)) }
        }
        let blocker = load("first.jpg", .normal)
        await eventually { await loader.started == ["first.jpg"] }
        let low = load("low.jpg", .low)
        await eventually { await pipeline.downloads.waitingCount == 1 }
        let normal = load("normal.jpg", .normal)
        await eventually { await pipeline.downloads.waitingCount == 2 }
        await loader.release()
        _ = try await (blocker.value, low.value, normal.value)
        #expect(await loader.started == ["first.jpg", "normal.jpg", "low.jpg"])
    }

    @Test("1,000 prefetches at once stay within a few threads over the core count")
    func prefetchStormThreads() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let loader = GatedLoader()
        let pipeline = makePipeline(directory: directory, loader: loader)
        func threadCount() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0 }
        let before = threadCount()
        let tasks = (0..<1000).map { index in
            Task { try await pipeline.prefetch(ImageRequest(url: URL(string: "http://x/\(index).jpg")!, priority: .low)) }
        }
        await eventually { await loader.waitingCount == 6 }
        var peak = threadCount()
        await loader.release()
        for task in tasks {
            try await task.value
            peak = max(peak, threadCount())
        }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        #expect(await loader.started.count == 1000)
        #expect(peak <= max(before, cores) + 8, "\(peak) threads (before: \(before), cores: \(cores))")
    }
}
