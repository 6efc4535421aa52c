public import TesseraCore

/// Loads images ahead of need (the rows a grid is about to show) at low priority, and stops when
/// they are no longer wanted. Each prefetch goes through the pipeline, so it shares downloads with
/// real requests and obeys the same limits.
public final class ImagePrefetcher: Sendable {
    /// How far a prefetch goes.
    public enum Destination: Sendable {
        /// Download into the disk cache only (cheap: no decoding).
        case diskCache
        /// Download and decode into the memory cache too.
        case memoryCache
    }

    /// The pipeline prefetches go through, sharing its caches and limits.
    public let pipeline: ImagePipeline
    /// Whether prefetched images are decoded into the memory cache or only downloaded to disk.
    public let destination: Destination
    /// The priority prefetches run at.
    public let priority: WorkPriority
    /// Prefetches under way, by image key.
    private let tasks = Locked<[String: Task<Void, Never>]>([:])

    /// A prefetcher that downloads into the disk cache (by default) at low priority.
    public init(pipeline: ImagePipeline, destination: Destination = .diskCache, priority: WorkPriority = .low) {
        self.pipeline = pipeline
        self.destination = destination
        self.priority = priority
    }

    /// Starts prefetching each request not already being prefetched.
    public func startPrefetching(_ requests: [ImageRequest]) {
        tasks.withLock { tasks in
            for var request in requests {
                let key = request.imageKey
                guard tasks[key] == nil else { continue }
                request.priority = priority
                let decode = destination == .memoryCache
                tasks[key] = Task { [weak self] in
                    try? await self?.pipeline.prefetch(request, decode: decode)
                    self?.finished(key)
                }
            }
        }
    }

    /// Stops prefetching these requests; work a real request still waits for goes on.
    public func stopPrefetching(_ requests: [ImageRequest]) {
        tasks.withLock { tasks in
            for request in requests { tasks.removeValue(forKey: request.imageKey)?.cancel() }
        }
    }

    /// Stops every prefetch under way; work a real request still waits for goes on.
    public func stopAll() {
        tasks.withLock { tasks in
            tasks.values.forEach { $0.cancel() }
            tasks.removeAll()
        }
    }

    /// Prefetches under way.
    public var activeCount: Int { tasks.withLock { $0.count } }

    private func finished(_ key: String) {
        _ = tasks.withLock { $0.removeValue(forKey: key) }
    }

    deinit { tasks.withLock { $0.values.forEach { $0.cancel() } } }
}
