import CTesseraShims
import FoundationEssentials
import TesseraCore
import TesseraStorage

#if canImport(Glibc)
    import Glibc
#endif

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
        try Self.write(data, to: url.path)
    }

    /// `data` as the whole of the file at `path`, with one `open`, `write` and `close`: no sync per
    /// file (Foundation's `Data.write` syncs every file it writes, 4,000 syncs for a 16000×12000
    /// pyramid). A build is made durable once, by ``synchronize()``, before its descriptor is
    /// published.
    static func write(_ data: Data, to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw POSIXFailure("a tile could not be created", errno) }
        defer { close(descriptor) }
        try data.withUnsafeBytes { bytes in
            var done = 0
            while done < bytes.count {
                let count = Glibc.write(descriptor, bytes.baseAddress! + done, bytes.count - done)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { throw POSIXFailure("a tile could not be written", count < 0 ? errno : EIO) }
                done += count
            }
        }
    }

    /// Makes every file written so far durable: one `syncfs` of the file system the directory is
    /// on, which waits for all of its writes at once.
    func synchronize() throws {
        let descriptor = open(root.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw POSIXFailure("the pyramid's directory could not be opened", errno) }
        defer { close(descriptor) }
        guard tessera_sync_file_system(descriptor) == 0 else { throw POSIXFailure("the pyramid could not be synchronised", errno) }
    }
}

/// A failed system call of the tile sink, with the system's reason and no path.
struct POSIXFailure: TesseraError {
    let description: String
    var category: ErrorCategory { .io }

    init(_ what: String, _ code: Int32) {
        description = what + ": " + String(cString: strerror(code))
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
