import FoundationEssentials
import TesseraCore
import TesseraPipeline

/// Where the builder's files go, one encoded file at a time, from the threads that encode them.
protocol TileSink: Sendable {
    /// Stores `data` at `path` (relative to the pyramid's root), or throws. May block while
    /// earlier files are still on their way (so memory stays bounded).
    func store(_ data: Data, at path: String) throws
}

/// Files in a local directory, made as needed.
final class DirectorySink: TileSink, @unchecked Sendable {
    // @unchecked: `directories` is only touched under `lock`.
    private let root: URL
    private let lock = ConditionLock()
    private var directories: Set<String> = []

    init(root: URL) { self.root = root }

    func store(_ data: Data, at path: String) throws {
        let url = root.appendingPathComponent(path)
        let directory = url.deletingLastPathComponent().path
        if !lock.withLock({ directories.contains(directory) }) {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            lock.withLock { _ = directories.insert(directory) }
        }
        try data.write(to: url)
    }
}

/// Objects in an ``ObjectStoring`` under a key prefix, uploaded `concurrency` at a time: a thread
/// that hands over a file while that many are in flight waits for one to finish, so a fast
/// encoder never queues up a pyramid's worth of tiles in memory. A waiting thread gives up with
/// `CancellationError` once the build's task is cancelled.
final class ObjectStoreSink: TileSink, @unchecked Sendable {
    // @unchecked: the counters, the key list and the failure are only touched under `lock`.
    private let store: any ObjectStoring
    private let prefix: String
    private let concurrency: Int
    private let context: WorkContext?
    private let lock = ConditionLock()
    private var inFlight = 0
    private var failure: (any Error)?
    private var stored: [String] = []

    init(store: any ObjectStoring, prefix: String, concurrency: Int, context: WorkContext? = nil) {
        self.store = store
        self.prefix = prefix
        self.concurrency = max(1, concurrency)
        self.context = context
    }

    /// The store key of a pyramid path.
    func key(_ path: String) -> String { prefix.isEmpty ? path : prefix + "/" + path }

    /// Keys uploaded so far.
    var storedKeys: [String] { lock.withLock { stored } }

    func store(_ data: Data, at path: String) throws {
        try lock.withLock { () throws in
            while inFlight >= concurrency, failure == nil {
                try context?.checkCancellation()
                _ = lock.wait(seconds: 0.05)
            }
            if let failure { throw failure }
            try context?.checkCancellation()
            inFlight += 1
        }
        let key = self.key(path)
        let store = self.store
        Task { [self] in
            let outcome: (any Error)?
            do {
                try await store.put(key, data, contentType: Self.contentType(of: path))
                outcome = nil
            } catch {
                outcome = error
            }
            lock.withLock {
                if let outcome { failure = failure ?? outcome } else { stored.append(key) }
                inFlight -= 1
                lock.broadcast()
            }
        }
    }

    /// Waits for every upload; throws the first failure.
    func drain() throws {
        let firstFailure = lock.withLock { () -> (any Error)? in
            while inFlight > 0 { lock.wait() }
            return failure
        }
        if let firstFailure { throw firstFailure }
    }

    /// Deletes `keys`, `concurrency` at a time, waiting for them all; throws the first failure.
    /// For the builder's thread, which cannot await.
    func removeBlocking(_ keys: [String]) throws {
        guard !keys.isEmpty else { return }
        let store = self.store, limit = concurrency
        try BlockingResult<Void>.run {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, key) in keys.enumerated() {
                    if index >= limit { try await group.next() }
                    group.addTask { try await store.delete(key) }
                }
                try await group.waitForAll()
            }
        }
    }

    /// The media type stored with a tile or descriptor, from its extension.
    static func contentType(of path: String) -> String? {
        switch path.split(separator: ".").last.map({ $0.lowercased() }) {
        case "jpg", "jpeg": "image/jpeg"
        case "png": "image/png"
        case "webp": "image/webp"
        case "avif": "image/avif"
        case "heic": "image/heic"
        case "json": "application/json"
        case "dzi", "xml": "application/xml"
        default: nil
        }
    }
}
