import TesseraCore

/// One run of some work per key, however many callers ask for it at once: a pyramid build, a
/// render of the same canonical request.
///
/// The work runs in a task of its own, so a caller that gives up (a deadline, a client gone) stops
/// waiting at once without cancelling what others are waiting for or what the next request will
/// find done.
final class SingleFlight<Value: Sendable>: Sendable {
    private let running = Locked<[String: Task<Value, any Error>]>([:])

    /// Keys whose work is running now.
    var keys: [String] { running.withLock { Array($0.keys) } }

    /// The result of `work` for `key`, started now unless it is already running.
    /// - Throws: what `work` throws, or `CancellationError` when the calling task is cancelled first.
    func value(for key: String, work: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let task = running.withLock { running in
            if let task = running[key] { return task }
            // Made under the lock, so its own removal (which takes the lock) always comes after this insertion.
            let task = Task {
                defer { _ = self.running.withLock { $0.removeValue(forKey: key) } }
                return try await work()
            }
            running[key] = task
            return task
        }
        let waiter = Waiter<Value>()
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { continuation in
                waiter.wait(continuation)
                Task { waiter.resume(with: await task.result) }
            }
        } onCancel: {
            waiter.resume(with: .failure(CancellationError()))
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
