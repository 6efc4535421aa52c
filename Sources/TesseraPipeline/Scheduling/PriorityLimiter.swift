import FoundationEssentials
import TesseraCore

/// Lets at most `limit` operations run at once; the others wait, highest priority first (first come
/// first served within a priority). A waiting operation's priority can be raised, and a waiter that
/// is cancelled leaves the queue at once.
actor PriorityLimiter {
    private struct Waiter {
        let ticket: UInt64
        var priority: WorkPriority
        let order: UInt64
        let continuation: CheckedContinuation<Void, any Error>
    }

    let limit: Int
    private var running = 0
    private var waiters: [Waiter] = []
    private var nextOrder: UInt64 = 0
    private var priorities: [UInt64: WorkPriority] = [:]

    init(limit: Int) { self.limit = max(1, limit) }

    /// Waits for a slot. Call ``release()`` exactly once after a successful acquire.
    func acquire(ticket: UInt64, priority: WorkPriority) async throws {
        try Task.checkCancellation()
        if running < limit {
            running += 1
            return
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                nextOrder += 1
                let raised = max(priority, priorities.removeValue(forKey: ticket) ?? priority)
                waiters.append(Waiter(ticket: ticket, priority: raised, order: nextOrder, continuation: continuation))
            }
        } onCancel: {
            Task { await self.cancel(ticket: ticket) }
        }
    }

    func release() {
        guard
            let index = waiters.indices.max(by: { (waiters[$0].priority, -Int(waiters[$0].order)) < (waiters[$1].priority, -Int(waiters[$1].order)) })
        else {
            running -= 1
            return
        }
        waiters.remove(at: index).continuation.resume()
    }

    /// Raises the priority of a waiting (or not yet waiting) operation.
    func raise(ticket: UInt64, to priority: WorkPriority) {
        if let index = waiters.firstIndex(where: { $0.ticket == ticket }) {
            waiters[index].priority = max(waiters[index].priority, priority)
        } else {
            priorities[ticket] = max(priorities[ticket] ?? priority, priority)
        }
    }

    /// Runs `operation` holding a slot.
    func run<T: Sendable>(ticket: UInt64, priority: WorkPriority, _ operation: @Sendable () async throws -> T) async throws -> T {
        try await acquire(ticket: ticket, priority: priority)
        priorities[ticket] = nil
        defer { release() }
        return try await operation()
    }

    private func cancel(ticket: UInt64) {
        guard let index = waiters.firstIndex(where: { $0.ticket == ticket }) else { return }
        waiters.remove(at: index).continuation.resume(throwing: CancellationError())
    }

    var waitingCount: Int { waiters.count }

    var waitingPriorities: [WorkPriority] { waiters.map(\.priority) }
}
