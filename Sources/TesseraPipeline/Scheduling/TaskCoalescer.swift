import FoundationEssentials
import TesseraCore

/// Runs one piece of work per key for any number of callers (a download, a decode), so identical
/// requests share it.
///
/// Each caller waits on its own continuation: cancelling a caller ends its wait at once, and when
/// the last caller of a key has cancelled, the work itself is cancelled. A caller with a higher
/// priority than the work's raises it (through `raise`, which reaches the limiter it waits in).
actor TaskCoalescer<Value: Sendable> {
    private final class Entry {
        let ticket: UInt64
        let relatedKey: String?
        var priority: WorkPriority
        var task: Task<Void, Never>?
        var subscribers: [UInt64: (continuation: CheckedContinuation<(value: Value, coalesced: Bool), any Error>, coalesced: Bool)] = [:]

        init(ticket: UInt64, priority: WorkPriority, relatedKey: String?) {
            self.ticket = ticket
            self.relatedKey = relatedKey
            self.priority = priority
        }
    }

    private var entries: [String: Entry] = [:]
    private var nextID: UInt64 = 0
    private let raise: @Sendable (_ ticket: UInt64, _ priority: WorkPriority, _ relatedKey: String?) async -> Void

    /// `raise` is told when running work's priority goes up, with the key of the work it depends on.
    init(raise: @escaping @Sendable (_ ticket: UInt64, _ priority: WorkPriority, _ relatedKey: String?) async -> Void) {
        self.raise = raise
    }

    /// The work's result for `key`, starting the work unless it is already running. Returns the
    /// value and whether this caller joined work another caller had started.
    func value(
        for key: String, priority: WorkPriority, relatedKey: String? = nil,
        work: @escaping @Sendable (_ ticket: UInt64, _ priority: WorkPriority) async throws -> Value
    ) async throws -> (value: Value, coalesced: Bool) {
        nextID += 1
        let subscriber = nextID
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                if let entry = entries[key] {
                    entry.subscribers[subscriber] = (continuation, true)
                    raise(key: key, to: priority)
                    return
                }
                nextID += 1
                let entry = Entry(ticket: nextID, priority: priority, relatedKey: relatedKey)
                entry.subscribers[subscriber] = (continuation, false)
                entries[key] = entry
                let ticket = entry.ticket
                entry.task = Task {
                    let result: Result<Value, any Error>
                    do {
                        result = .success(try await work(ticket, priority))
                    } catch {
                        result = .failure(error)
                    }
                    self.finish(key: key, entry: entry, result: result)
                }
            }
        } onCancel: {
            Task { await self.unsubscribe(key: key, subscriber: subscriber) }
        }
    }

    /// Raises the running work for `key` to `priority`, if that is higher.
    func raise(key: String, to priority: WorkPriority) {
        guard let entry = entries[key], priority > entry.priority else { return }
        entry.priority = priority
        let (ticket, related) = (entry.ticket, entry.relatedKey)
        Task { await raise(ticket, priority, related) }
    }

    private func finish(key: String, entry: Entry, result: Result<Value, any Error>) {
        if entries[key] === entry { entries[key] = nil }
        for (_, subscriber) in entry.subscribers {
            subscriber.continuation.resume(with: result.map { (value: $0, coalesced: subscriber.coalesced) })
        }
        entry.subscribers.removeAll()
    }

    private func unsubscribe(key: String, subscriber: UInt64) {
        guard let entry = entries[key], let removed = entry.subscribers.removeValue(forKey: subscriber) else { return }
        removed.continuation.resume(throwing: CancellationError())
        if entry.subscribers.isEmpty {
            entry.task?.cancel()
            entries[key] = nil
        }
    }
}
