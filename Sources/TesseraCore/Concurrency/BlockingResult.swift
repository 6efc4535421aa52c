/// A result that one thread waits for and a task sets: how work on the executor's threads, which
/// cannot await, waits for async work (an upload, a ranged read). Never wait on one from the
/// concurrency pool's threads: the task that sets it may need the thread that waits.
package final class BlockingResult<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `result` is only touched under `lock`.
    private let lock = ConditionLock()
    private var result: Result<Value, any Error>?

    package init() {}

    /// Runs `operation` in a new task and waits for it on this thread.
    package static func run(_ operation: @escaping @Sendable () async throws -> Value) throws -> Value {
        let outcome = BlockingResult<Value>()
        Task {
            do {
                outcome.set(.success(try await operation()))
            } catch {
                outcome.set(.failure(error))
            }
        }
        return try outcome.wait()
    }

    package func set(_ result: Result<Value, any Error>) {
        lock.withLock {
            self.result = result
            lock.broadcast()
        }
    }

    package func wait() throws -> Value {
        try lock.withLock { () throws -> Value in
            while result == nil { lock.wait() }
            return try result!.get()
        }
    }
}
