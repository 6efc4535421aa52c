import TesseraCore
import TesseraTiles

/// Whole levels being made, one run per key however many requests want it, readable region by
/// region while they are made: a viewer's first screen asks for every tile of one level at once,
/// and the tiles of its top rows are cut and encoded (on the other worker threads) while the rows
/// below are still being decoded, instead of all waiting for the last row.
///
/// A run that reports its rows (``Writer``) serves each region as soon as its rows are written;
/// one that does not serves it when the level is whole. A run is cancelled when the last request
/// waiting for it is cancelled (its client went away), as ``SingleFlight`` does with
/// ``SingleFlight/cancelsAbandonedWork``; a request that got its region and left does not count
/// against it: the level's other tiles are asked for next.
final class LevelFlights: Sendable {
    /// What a run reports its progress to.
    struct Writer: Sendable {
        fileprivate let flight: Flight

        /// For ``RegionLevels/pixels(of:reduction:context:progress:)``.
        func report(_ progress: RegionProgress) { flight.report(progress) }
    }

    /// Runs by key. Joining and leaving a run both happen under this lock (with the run's own lock
    /// taken inside it, never the other way round), so nobody joins a run as its last waiter
    /// cancels it.
    private let flights = Locked<[String: Flight]>([:])
    private let stopping = Locked(0)
    private let onAbandoned: @Sendable () -> Void

    init(onAbandoned: @escaping @Sendable () -> Void = {}) { self.onAbandoned = onAbandoned }

    /// Requests waiting now, over every key.
    var waitingCount: Int { flights.withLock { $0.values.reduce(0) { $0 + $1.waiterCount } } }
    /// Runs cancelled for want of requests that have not ended yet.
    var stoppingCount: Int { stopping.withLock { $0 } }

    /// `rect` of the level `key` names (the whole level when nil), from the run making it, started
    /// now with `make` unless one is running. `size` is the level's size in pixels.
    /// - Throws: what `make` throws, or `CancellationError` when the calling task is cancelled first.
    func region(
        _ rect: PixelRect?, of key: String, size: PixelSize, make: @escaping @Sendable (Writer) async throws -> PixelBuffer
    ) async throws -> PixelBuffer {
        try Task.checkCancellation()
        let waiter = Waiter(rect)
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { continuation in
                let ready = flights.withLock { flights -> Result<PixelBuffer, any Error>? in
                    waiter.continuation = continuation
                    if waiter.isGone { return .failure(CancellationError()) }
                    let flight = flights[key] ?? start(key, size: size, make: make, in: &flights)
                    waiter.flight = flight
                    return flight.wait(waiter)
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            let stopped = flights.withLock { flights -> Flight? in
                guard let flight = waiter.flight else {
                    waiter.isGone = true
                    return nil
                }
                guard flight.leave(waiter), flights[key] === flight else { return nil }
                // The last one waiting went: the next request starts afresh.
                flights[key] = nil
                return flight
            }
            guard let stopped, let task = stopped.task else { return }
            stopping.withLock { $0 += 1 }
            task.cancel()
            Task {
                await task.value
                if stopped.endedByCancellation { self.onAbandoned() }
                self.stopping.withLock { $0 -= 1 }
            }
        }
    }

    private func start(
        _ key: String, size: PixelSize, make: @escaping @Sendable (Writer) async throws -> PixelBuffer, in flights: inout [String: Flight]
    ) -> Flight {
        let flight = Flight(size: size)
        flights[key] = flight
        // Started under the lock, so its own removal (which takes the lock) comes after this insertion.
        flight.task = Task {
            let result: Result<PixelBuffer, any Error>
            do { result = .success(try await make(Writer(flight: flight))) } catch { result = .failure(error) }
            self.flights.withLock { if $0[key] === flight { $0[key] = nil } }
            flight.finish(result)
        }
        return flight
    }

    /// A request waiting for its region. Its fields are read and written under ``LevelFlights``'
    /// lock only.
    fileprivate final class Waiter: @unchecked Sendable {
        let rect: PixelRect?
        var continuation: UnsafeContinuation<PixelBuffer, any Error>?
        var flight: Flight?
        /// Cancelled before it joined a run.
        var isGone = false

        init(_ rect: PixelRect?) { self.rect = rect }
    }

    /// One run: its progress, its result, and the requests waiting. Rows reported are copied under
    /// the lock, so a failing run (which reports ``RegionProgress/failed`` before freeing them)
    /// never frees rows being copied.
    fileprivate final class Flight: @unchecked Sendable {
        let size: PixelSize
        /// Set once, under ``LevelFlights``' lock, before anyone else sees the flight.
        var task: Task<Void, Never>?
        private let state = Locked(State())

        // Unchecked for the rows' pointer, which is only read under the lock while the run keeps it alive.
        private struct State: @unchecked Sendable {
            var rows: (base: UnsafeRawPointer, format: PixelFormat, written: Int)?
            var result: Result<PixelBuffer, any Error>?
            var waiters: [Waiter] = []
        }

        init(size: PixelSize) { self.size = size }

        var waiterCount: Int { state.withLock { $0.waiters.count } }

        var endedByCancellation: Bool {
            state.withLock { state in
                guard case .failure(let error)? = state.result else { return false }
                return ErrorCategory(of: error) == .cancelled
            }
        }

        /// `waiter`'s region when it is there already; else nil, and the waiter is answered later.
        func wait(_ waiter: Waiter) -> Result<PixelBuffer, any Error>? {
            state.withLock { state in
                if let answer = Self.answer(for: waiter.rect, levelWidth: size.width, state) { return answer }
                state.waiters.append(waiter)
                return nil
            }
        }

        /// Whether `waiter` was the last one waiting; it is resumed with a cancellation, unless it
        /// was answered already.
        func leave(_ waiter: Waiter) -> Bool {
            let (found, last) = state.withLock { state -> (Bool, Bool) in
                guard let index = state.waiters.firstIndex(where: { $0 === waiter }) else { return (false, false) }
                state.waiters.remove(at: index)
                return (true, state.waiters.isEmpty)
            }
            if found { waiter.continuation?.resume(throwing: CancellationError()) }
            return last
        }

        func report(_ progress: RegionProgress) {
            let answered = state.withLock { state -> [(Waiter, Result<PixelBuffer, any Error>)] in
                guard case .rows(let base, let format, let written) = progress else {
                    state.rows = nil
                    return []
                }
                state.rows = (base, format, written)
                var answered: [(Waiter, Result<PixelBuffer, any Error>)] = [], waiting: [Waiter] = []
                for waiter in state.waiters {
                    if let answer = Self.answer(for: waiter.rect, levelWidth: size.width, state) {
                        answered.append((waiter, answer))
                    } else {
                        waiting.append(waiter)
                    }
                }
                state.waiters = waiting
                return answered
            }
            for (waiter, answer) in answered { waiter.continuation?.resume(with: answer) }
        }

        func finish(_ result: Result<PixelBuffer, any Error>) {
            let waiters = state.withLock { state -> [Waiter] in
                state.rows = nil
                state.result = result
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters {
                waiter.continuation?.resume(with: result.map { level in waiter.rect.flatMap { level.cropped(to: $0) } ?? level })
            }
        }

        /// `rect`'s pixels if they are there: cut from the finished level, or copied from the rows
        /// written so far.
        private static func answer(for rect: PixelRect?, levelWidth: Int, _ state: State) -> Result<PixelBuffer, any Error>? {
            if let result = state.result { return result.map { level in rect.flatMap { level.cropped(to: $0) } ?? level } }
            guard let rect, let rows = state.rows, rect.width > 0, rect.height > 0, rect.y + rect.height <= rows.written else { return nil }
            let channels = rows.format.bytesPerPixel, rowBytes = rect.width * channels
            return .success(
                PixelBuffer(width: rect.width, height: rect.height, format: rows.format) { target in
                    for y in 0..<rect.height {
                        let from = rows.base + ((rect.y + y) * levelWidth + rect.x) * channels
                        (target.baseAddress! + y * rowBytes).update(from: from.assumingMemoryBound(to: UInt8.self), count: rowBytes)
                    }
                })
        }
    }
}
