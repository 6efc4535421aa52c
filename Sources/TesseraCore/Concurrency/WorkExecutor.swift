#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How soon queued work should run: higher first, first come first served within a priority. The
/// one priority of every queue in Tessera: the executor's, the image pipeline's requests (their
/// downloads and decodes), the viewer engine's tiles.
public enum WorkPriority: Int, Sendable, Comparable, Codable, CaseIterable {
    /// `veryLow` and `low` for prefetching and background builds, `normal` by default, `high` and
    /// `veryHigh` for what a user waits on (a viewer's visible tiles are `veryHigh`).
    case veryLow, low, normal, high, veryHigh

    public static func < (lhs: WorkPriority, rhs: WorkPriority) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The executor refused work because its queue is full (``ErrorCategory/busy``): a server answers
/// 503 with `Retry-After` rather than queueing without bound.
public struct WorkQueueFullError: TesseraError, Equatable {
    /// Jobs waiting when the work was refused.
    public let queuedCount: Int
    /// Always ``ErrorCategory/busy``.
    public var category: ErrorCategory { .busy }
    public var description: String { "too much work queued (\(queuedCount) jobs waiting); try again later" }
}

/// The one bounded executor for blocking work: decoding, encoding, resampling and libav calls run
/// here, on a fixed number of threads of its own, never on Swift's cooperative pool (which a
/// blocking C call would starve). Thumbnails, pyramids, strips, trims and the image pipeline all
/// submit to ``shared``, so a process never runs more blocking jobs than it has threads.
///
/// Work is queued by ``WorkPriority``. Threads start on demand, so a process that makes one
/// thumbnail starts one, and end after 10 seconds without work, so an executor that is
/// no longer used costs nothing. A queue limit turns overload into ``WorkQueueFullError``.
public final class WorkExecutor: Sendable {
    /// One thread per active core, no queue limit.
    public static let shared = WorkExecutor(threadCount: activeProcessorCount())

    /// The most jobs that run at once.
    public let threadCount: Int
    /// The most jobs that may wait; more are refused with ``WorkQueueFullError``.
    public let queueLimit: Int
    private let lock = ConditionLock()
    private nonisolated(unsafe) let state = UnsafeMutablePointer<State>.allocate(capacity: 1)
    // nonisolated(unsafe): `state` is only read or written while `lock` is held.

    private struct Job {
        let id: UInt64
        let run: () -> Void
        /// Called instead of `run` when the job leaves the queue without running (cancelled).
        let drop: () -> Void
    }

    private struct State {
        var queues: [[Job]] = Array(repeating: [], count: WorkPriority.allCases.count)
        /// Jobs handed to a thread that was idle when they came, ahead of every queue (see ``runIfIdle``).
        var handoffs: [Job] = []
        var threads = 0
        var idle = 0
        var running = 0
        var nextID: UInt64 = 0
        var queuedCount: Int { queues.reduce(0) { $0 + $1.count } }
    }

    /// An executor of its own, for work that must not wait behind ``shared``'s (or tests).
    /// - Parameters:
    ///   - threadCount: the most jobs run at once; at least 1. No thread starts until there is work.
    ///   - queueLimit: the most jobs that may wait; ``run(priority:_:)`` throws ``WorkQueueFullError``
    ///     for any more.
    public init(threadCount: Int, queueLimit: Int = .max) {
        self.threadCount = max(1, threadCount)
        self.queueLimit = max(0, queueLimit)
        state.initialize(to: State())
    }

    deinit {
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// Jobs waiting for a thread.
    public var queuedCount: Int { lock.withLock { state.pointee.queuedCount } }
    /// Jobs running now.
    public var runningCount: Int { lock.withLock { state.pointee.running } }

    /// Runs `work` on one of the executor's threads and returns its result.
    ///
    /// Cancelling the calling task removes the job if it is still queued (throwing
    /// `CancellationError` at once) and otherwise marks its ``WorkContext`` cancelled, which the work
    /// checks between rows, tiles or frames.
    /// - Throws: whatever `work` throws; `CancellationError`; ``WorkQueueFullError`` when the queue is full.
    public func run<T: Sendable>(
        priority: WorkPriority = .normal, _ work: @escaping @Sendable (WorkContext) throws -> T
    ) async throws -> T {
        try Task.checkCancellation()
        let context = WorkContext()
        let id = lock.withLock { () -> UInt64 in
            state.pointee.nextID += 1
            return state.pointee.nextID
        }
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<T, any Error>) in
                let job = Job(
                    id: id,
                    run: {
                        guard !context.isCancelled else { return continuation.resume(throwing: CancellationError()) }
                        continuation.resume(with: Result { try work(context) })
                    },
                    drop: {
                        continuation.resume(throwing: CancellationError())
                    })
                if let refusal = enqueue(job, priority: priority) { continuation.resume(throwing: refusal) }
            }
        } onCancel: {
            context.cancel()
            removeQueued(id: id)
        }
    }

    /// Runs `job` at once on a thread that is idle now (starting one if the executor has fewer than
    /// ``threadCount``), and returns true; returns false, without running it, when every thread is busy.
    ///
    /// For work that fans out from a running job (a decoder thread reading ahead, tiles encoded while
    /// rows still decode): the caller does the work itself when this returns false. Such work never
    /// waits in the queue, so a job can wait on what it handed off without risk of deadlock.
    public func runIfIdle(_ job: @escaping @Sendable () -> Void) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        let available = state.pointee.idle - state.pointee.handoffs.count
        guard available > 0 || state.pointee.threads < threadCount else { return false }
        state.pointee.nextID += 1
        state.pointee.handoffs.append(Job(id: state.pointee.nextID, run: job, drop: {}))
        if available > 0 { lock.broadcast() } else { startThread() }
        return true
    }

    /// Queues the job, waking or starting a thread for it; the error when the queue is full.
    private func enqueue(_ job: Job, priority: WorkPriority) -> WorkQueueFullError? {
        lock.lock()
        defer { lock.unlock() }
        let queued = state.pointee.queuedCount
        guard queued < queueLimit else { return WorkQueueFullError(queuedCount: queued) }
        state.pointee.queues[priority.rawValue].append(job)
        if state.pointee.idle - state.pointee.handoffs.count > 0 {
            lock.broadcast()
        } else if state.pointee.threads < threadCount {
            startThread()
        }
        return nil
    }

    private func removeQueued(id: UInt64) {
        let removed: Job? = lock.withLock {
            for priority in state.pointee.queues.indices {
                if let index = state.pointee.queues[priority].firstIndex(where: { $0.id == id }) {
                    return state.pointee.queues[priority].remove(at: index)
                }
            }
            return nil
        }
        removed?.drop()
    }

    /// Called with the lock held.
    private func startThread() {
        state.pointee.threads += 1
        startDetachedThread { [self] in workLoop() }
    }

    /// Seconds a thread waits for work before it ends.
    static let idleTimeout = 10.0

    private func workLoop() {
        lock.lock()
        while true {
            state.pointee.idle += 1
            while state.pointee.handoffs.isEmpty && state.pointee.queuedCount == 0 {
                if !lock.wait(seconds: Self.idleTimeout), state.pointee.handoffs.isEmpty, state.pointee.queuedCount == 0 {
                    state.pointee.idle -= 1
                    state.pointee.threads -= 1
                    lock.unlock()
                    return
                }
            }
            state.pointee.idle -= 1
            let job: Job
            if !state.pointee.handoffs.isEmpty {
                job = state.pointee.handoffs.removeFirst()
            } else {
                let priority = state.pointee.queues.lastIndex { !$0.isEmpty }!
                job = state.pointee.queues[priority].removeFirst()
            }
            state.pointee.running += 1
            lock.unlock()
            job.run()
            lock.lock()
            state.pointee.running -= 1
        }
    }
}

/// What a job on the ``WorkExecutor`` checks to learn that its task was cancelled.
public final class WorkContext: Sendable {
    private let lock = ConditionLock()
    private nonisolated(unsafe) var cancelled = false
    // nonisolated(unsafe): read and written only under `lock`.

    /// A context that is never cancelled (for synchronous callers).
    public static let uncancellable = WorkContext()

    /// A context that is not cancelled; the executor cancels the one it makes for each job.
    public init() {}

    /// Whether the task that submitted the job has been cancelled. Long work checks it between rows,
    /// tiles or frames and stops, leaving no partial output.
    public var isCancelled: Bool { lock.withLock { cancelled } }

    func cancel() { lock.withLock { cancelled = true } }

    /// Throws `CancellationError` once the task that submitted the job is cancelled.
    public func checkCancellation() throws(CancellationError) {
        if isCancelled { throw CancellationError() }
    }
}

/// Cores online.
public func activeProcessorCount() -> Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }
