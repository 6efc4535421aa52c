import Testing

@testable import TesseraCore

#if canImport(Glibc)
    import Glibc
#endif

/// A gate a job waits on until the test opens it.
private final class Gate: @unchecked Sendable {
    private let lock = ConditionLock()
    private var open = false
    private var arrivals = 0

    func pass() {
        lock.withLock {
            arrivals += 1
            lock.broadcast()
            while !open { lock.wait() }
        }
    }

    /// Waits without blocking a thread of the cooperative pool: the job that
    /// will arrive may need one of those threads to be enqueued at all.
    func waitForArrivals(_ count: Int) async {
        while lock.withLock({ arrivals < count }) { try? await Task.sleep(for: .milliseconds(1)) }
    }

    func release() {
        lock.withLock {
            open = true; lock.broadcast()
        }
    }
}

private final class Recorder: @unchecked Sendable {
    private let lock = ConditionLock()
    private var values: [String] = []
    func append(_ value: String) { lock.withLock { values.append(value) } }
    var recorded: [String] { lock.withLock { values } }
}

@Suite("WorkExecutor: bounded threads, priorities, cancellation, a queue limit")
struct WorkExecutorTests {
    @Test("queued work runs highest priority first, first come first served within one")
    func priorities() async throws {
        let executor = WorkExecutor(threadCount: 1)
        let gate = Gate(), order = Recorder()
        let blocker = Task { try await executor.run { _ in gate.pass() } }
        await gate.waitForArrivals(1)
        var tasks: [Task<Void, any Error>] = []
        for (name, priority) in [("low", WorkPriority.low), ("normal-1", .normal), ("high", .high), ("normal-2", .normal)] {
            tasks.append(Task { try await executor.run(priority: priority) { _ in order.append(name) } })
            while executor.queuedCount < tasks.count { await Task.yield() }
        }
        gate.release()
        try await blocker.value
        for task in tasks { try await task.value }
        #expect(order.recorded == ["high", "normal-1", "normal-2", "low"])
    }

    @Test("never more jobs at once than threads")
    func bounded() async throws {
        let executor = WorkExecutor(threadCount: 2)
        let lock = ConditionLock()
        nonisolated(unsafe) var running = 0, peak = 0
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<40 {
                group.addTask {
                    try await executor.run { _ in
                        lock.withLock {
                            running += 1; peak = max(peak, running)
                        }
                        usleep(2000)
                        lock.withLock { running -= 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(peak == 2)
    }

    @Test("a cancelled task leaves the queue at once; a running job sees its context cancelled")
    func cancellation() async throws {
        let executor = WorkExecutor(threadCount: 1)
        let gate = Gate()
        let running = Task {
            try await executor.run { context -> Bool in
                gate.pass()
                return context.isCancelled
            }
        }
        await gate.waitForArrivals(1)
        let ran = Recorder()
        let queued = Task { try await executor.run { _ in ran.append("queued") } }
        while executor.queuedCount < 1 { await Task.yield() }
        queued.cancel()
        await #expect(throws: CancellationError.self) { try await queued.value }
        #expect(executor.queuedCount == 0)
        running.cancel()
        gate.release()
        #expect(try await running.value == true)
        #expect(ran.recorded.isEmpty)
    }

    @Test("a full queue refuses with a busy error instead of growing")
    func queueLimit() async throws {
        let executor = WorkExecutor(threadCount: 1, queueLimit: 1)
        let gate = Gate()
        let blocker = Task { try await executor.run { _ in gate.pass() } }
        await gate.waitForArrivals(1)
        let waiting = Task { try await executor.run { _ in 1 } }
        while executor.queuedCount < 1 { await Task.yield() }
        let error = await #expect(throws: WorkQueueFullError.self) { try await executor.run { _ in 2 } }
        #expect(error.map { ErrorCategory(of: $0) } == .busy)
        gate.release()
        try await blocker.value
        #expect(try await waiting.value == 1)
    }

    @Test("runIfIdle runs at once on an idle thread, and refuses when every thread is busy")
    func runIfIdle() async throws {
        let executor = WorkExecutor(threadCount: 1)
        let gate = Gate(), ran = Gate()
        #expect(executor.runIfIdle { gate.pass() })
        await gate.waitForArrivals(1)
        #expect(!executor.runIfIdle { ran.pass() })
        gate.release()
        while executor.runningCount > 0 { await Task.yield() }
        #expect(executor.runIfIdle { ran.pass() })
        await ran.waitForArrivals(1)
        ran.release()
    }
}

@Suite("WorkProgress")
struct WorkProgressTests {
    @Test("fraction follows units; onChange fires by granularity and at completion")
    func progress() {
        let seen = Recorder()
        let progress = WorkProgress(totalUnitCount: 1000, granularity: 0.1) { seen.append(String(cFormat: "%.2f", $0)) }
        #expect(progress.fraction == 0)
        for _ in 0..<1000 { progress.advance() }
        #expect(progress.fraction == 1 && progress.isFinished)
        #expect(seen.recorded.count == 11)
        #expect(seen.recorded.last == "1.00")
    }
}

@Suite("Error categories")
struct ErrorCategoryTests {
    @Test("CancellationError is cancelled, unknown errors internal, invalid arguments bad input")
    func categories() {
        struct Other: Error {}
        #expect(ErrorCategory(of: CancellationError()) == .cancelled)
        #expect(ErrorCategory(of: Other()) == .internal)
        #expect(ErrorCategory(of: InvalidArgumentError("scale", "must be > 0")) == .badInput)
        #expect(throws: InvalidArgumentError.self) { try DisplayScale(validating: 0) }
        #expect(throws: InvalidArgumentError.self) { try DisplayScale(validating: .nan) }
        #expect(oneLine("a\nb\u{1B}") == "a\\nb\\u{1B}")
    }
}
