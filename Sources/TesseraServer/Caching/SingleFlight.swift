import TesseraCore

/// One run of some work per key, however many callers ask for it at once: a pyramid build, a
/// render of the same canonical request.
///
/// The work runs in a task of its own, so a caller that gives up (a deadline, a client gone) stops
/// waiting at once without cancelling what others are waiting for. What happens to work that every
/// caller has given up on is the owner's choice: a pyramid build goes on (the next request finds it
/// done), a render or decode for clients that are gone is cancelled (``cancelsAbandonedWork``),
/// which stops it at its next cancellation check and frees its worker thread.
final class SingleFlight<Value: Sendable>: Sendable {
    private struct Flight {
        let id: UInt64
        let task: Task<Value, any Error>
        var waiters: Int
    }

    private let running = Locked<(flights: [String: Flight], nextID: UInt64)>(([:], 0))
    /// Whether work nobody waits for any more is cancelled.
    let cancelsAbandonedWork: Bool
    /// Called once for each piece of work cancelled because every caller had gone.
    private let onAbandoned: @Sendable () -> Void

    init(cancelsAbandonedWork: Bool = false, onAbandoned: @escaping @Sendable () -> Void = {}) {
        self.cancelsAbandonedWork = cancelsAbandonedWork
        self.onAbandoned = onAbandoned
    }

    /// Keys whose work is running now.
    var keys: [String] { running.withLock { Array($0.flights.keys) } }

    /// Work cancelled for want of callers that has not ended yet.
    var stoppingCount: Int { stopping.withLock { $0 } }
    private let stopping = Locked(0)

    /// Callers waiting now, over every key.
    var waitingCallers: Int { running.withLock { $0.flights.values.reduce(0) { $0 + $1.waiters } } }

    /// The result of `work` for `key`, started now unless it is already running.
    /// - Throws: what `work` throws, or `CancellationError` when the calling task is cancelled first.
    func value(for key: String, work: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let (task, id) = running.withLock { running -> (Task<Value, any Error>, UInt64) in
            if var flight = running.flights[key] {
                flight.waiters += 1
                running.flights[key] = flight
                return (flight.task, flight.id)
            }
            let id = running.nextID
            running.nextID += 1
            // Made under the lock, so its own removal (which takes the lock) always comes after this insertion.
            let task = Task {
                defer { self.remove(key, id: id) }
                return try await work()
            }
            running.flights[key] = Flight(id: id, task: task, waiters: 1)
            return (task, id)
        }
        let waiter = Waiter<Value>()
        do {
            let value = try await withTaskCancellationHandler {
                try await withUnsafeThrowingContinuation { continuation in
                    waiter.wait(continuation)
                    Task { waiter.resume(with: await task.result) }
                }
            } onCancel: {
                waiter.resume(with: .failure(CancellationError()))
            }
            leave(key, id: id)
            return value
        } catch {
            leave(key, id: id)
            throw error
        }
    }

    /// One caller of flight `id` stops waiting; the last one to go cancels the work when
    /// ``cancelsAbandonedWork``, and forgets it at once, so a caller that comes next starts afresh
    /// instead of joining work being cancelled.
    private func leave(_ key: String, id: UInt64) {
        let abandoned = running.withLock { running -> Task<Value, any Error>? in
            guard var flight = running.flights[key], flight.id == id else { return nil }
            flight.waiters -= 1
            guard flight.waiters == 0, cancelsAbandonedWork else {
                running.flights[key] = flight
                return nil
            }
            running.flights[key] = nil
            return flight.task
        }
        guard let abandoned else { return }
        // Work that finished meanwhile has nothing left to stop.
        Task {

            if case .failure(let error) = await abandoned.result, ErrorCategory(of: error) == .cancelled {
                self.onAbandoned()
            }
        }
        abandoned.cancel()
    }

    private func remove(_ key: String, id: UInt64) {
        running.withLock { running in
            if running.flights[key]?.id == id { running.flights[key] = nil }
        }
    }
}

/// A continuation resumed exactly once, by whichever comes first: the result or a cancellation
/// (which may arrive before the continuation exists).
private final class Waiter<Value: Sendable>: Sendable {
    private let state = Locked<(continuation: UnsafeContinuation<Value, any Error>?, early: Result<Value, any Error>?, done: Bool)>(
        (nil, nil, false))

    func wait(_ continuation: UnsafeContinuation<Value, any Error>) {
        let early = state.withLock { state -> Result<Value, any Error>? in
            if let early = state.early {
                state.done = true
                return early
            }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(with: early) }
    }

    func resume(with result: Result<Value, any Error>) {
        let continuation = state.withLock { state -> UnsafeContinuation<Value, any Error>? in
            guard !state.done else { return nil }
            guard let continuation = state.continuation else {
                if state.early == nil { state.early = result }
                return nil
            }
            state.done = true
            state.continuation = nil
            return continuation
        }
        continuation?.resume(with: result)
    }
}
