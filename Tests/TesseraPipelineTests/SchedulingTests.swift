import Foundation
import TesseraCore
import Testing

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

    /// With one download slot held by `first.jpg`, queues `low.jpg` (low) then `normal.jpg`
    /// (normal), lets `beforeRelease` act on the queue, then releases everything and returns the
    /// order in which the loader started the downloads.
    func downloadOrder(
        beforeRelease: (
            _ load: (String, WorkPriority) -> Task<ImageResponse, any Error>,
            _ pipeline: ImagePipeline
        ) async -> Void = { _, _ in }
    ) async throws -> [String] {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let loader = GatedLoader()
        let pipeline = makePipeline(directory: directory, loader: loader, downloads: 1)
        var tasks: [Task<ImageResponse, any Error>] = []
        func load(_ name: String, _ priority: WorkPriority) -> Task<ImageResponse, any Error> {
            let task = Task { try await pipeline.image(for: ImageRequest(url: URL(string: "http://x/\(name)")!, priority: priority)) }
            tasks.append(task)
            return task
        }
        _ = load("first.jpg", .normal)
        await eventually { await loader.started == ["first.jpg"] }
        _ = load("low.jpg", .low)
        await eventually { await pipeline.downloads.waitingCount == 1 }
        _ = load("normal.jpg", .normal)
        await eventually { await pipeline.downloads.waitingCount == 2 }
        await beforeRelease(load, pipeline)
        await loader.release()
        for task in tasks { _ = try await task.value }
        return await loader.started
    }

    @Test("queued downloads run in priority order: normal before low")
    func priorityOrder() async throws {
        #expect(try await downloadOrder() == ["first.jpg", "normal.jpg", "low.jpg"])
    }

    @Test("a waiting download is raised when a more urgent caller joins it")
    func priorityRaise() async throws {
        let order = try await downloadOrder { load, pipeline in
            _ = load("low.jpg", .veryHigh)  // joins the low-priority download
            await eventually { await pipeline.downloads.waitingPriorities.contains(.veryHigh) }
        }
        #expect(order == ["first.jpg", "low.jpg", "normal.jpg"])
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
        // Other suites run in this process at the same time and start threads of their own (video
        // decoders, x264 exports, the server tests' executors and event loops: 73 seen at once);
        // the margin absorbs them. A thread per prefetch would mean a thousand.
        #expect(peak <= max(before, cores) + 256, "\(peak) threads (before: \(before), cores: \(cores))")
    }
}
