import FoundationEssentials
import TesseraCodecs
public import TesseraCore

/// Loads display-sized images through a memory cache (decoded, by cost), a disk cache (original
/// bytes) and the network, never downloading or decoding the same thing twice at once and never
/// running more than a set number of downloads and decodes.
///
/// - Identical concurrent requests share one download and one decode; requests for different sizes
///   of one URL share the download and decode separately.
/// - Cancelling a caller's task ends its wait at once; work nobody waits for any more is cancelled.
/// - Shared work runs at the highest priority among its callers, raised when a more urgent caller joins.
public final class ImagePipeline: Sendable {
    /// What a pipeline loads with, caches in, and how much it runs at once. Fixed when the pipeline is
    /// made.
    public struct Configuration: Sendable {
        /// Fetches the bytes behind a URL; ``HTTPDataLoader`` by default.
        public var dataLoader: any DataLoading
        /// Nil disables the disk cache.
        public var dataCache: (any DataCaching)?
        /// Nil disables the memory cache.
        public var imageCache: (any ImageCaching)?
        /// Turns bytes into the requested image; ``ThumbnailDecoder`` by default.
        public var decoder: any ImageDecoding
        /// Downloads at once.
        public var maximumConcurrentDownloads: Int
        /// Decodes (and processing) at once; they run on `executor`'s threads.
        public var maximumConcurrentDecodes: Int
        /// Where decoding and processing run.
        public var executor: WorkExecutor
        /// Also keep processed, display-sized variants in the disk cache (as PNG, under their own
        /// keys), so a later run skips decoding the original.
        public var storesProcessedImagesOnDisk: Bool

        /// The default configuration: HTTP loading, a ``DiskCache`` in the user's cache directory, a
        /// `MemoryImageCache`, the thumbnailer as decoder, 6 downloads and one decode per core at once,
        /// on `WorkExecutor.shared`.
        public init(
            dataLoader: any DataLoading = HTTPDataLoader(),
            dataCache: (any DataCaching)? = DiskCache(),
            imageCache: (any ImageCaching)? = MemoryImageCache(),
            decoder: any ImageDecoding = ThumbnailDecoder(),
            maximumConcurrentDownloads: Int = 6,
            maximumConcurrentDecodes: Int = activeProcessorCount(),
            executor: WorkExecutor = .shared,
            storesProcessedImagesOnDisk: Bool = false
        ) {
            self.executor = executor
            self.storesProcessedImagesOnDisk = storesProcessedImagesOnDisk
            self.dataLoader = dataLoader
            self.dataCache = dataCache
            self.imageCache = imageCache
            self.decoder = decoder
            self.maximumConcurrentDownloads = maximumConcurrentDownloads
            self.maximumConcurrentDecodes = maximumConcurrentDecodes
        }
    }

    /// What the pipeline was made with.
    public let configuration: Configuration
    /// What the pipeline has done so far.
    public let statistics = PipelineStatistics()
    let downloads: PriorityLimiter
    private let decodes: PriorityLimiter
    private let dataTasks: TaskCoalescer<LoadedData>
    private let imageTasks: TaskCoalescer<DecodedResult>

    /// The download a request's data comes from: a reload never shares a cached read.
    private static func dataTaskKey(for request: ImageRequest) -> String {
        request.dataKey + (request.cachePolicy == .reloadIgnoringCaches ? "#reload" : "")
    }

    /// A pipeline with `configuration`'s loader, caches and limits. A process usually needs one, shared
    /// by everything that loads images, so that requests coalesce.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        let downloads = PriorityLimiter(limit: configuration.maximumConcurrentDownloads)
        let decodes = PriorityLimiter(limit: configuration.maximumConcurrentDecodes)
        self.downloads = downloads
        self.decodes = decodes
        let dataTasks = TaskCoalescer<LoadedData> { ticket, priority, _ in await downloads.raise(ticket: ticket, to: priority) }
        self.dataTasks = dataTasks
        // A decode waiting for its download raises the download too.
        imageTasks = TaskCoalescer { ticket, priority, dataKey in
            await decodes.raise(ticket: ticket, to: priority)
            if let dataKey { await dataTasks.raise(key: dataKey, to: priority) }
        }
    }

    /// The image `request` asks for.
    public func image(for request: ImageRequest) async throws -> ImageResponse {
        let start = ContinuousClock.now
        let imageKey = request.imageKey
        if request.cachePolicy != .reloadIgnoringCaches, let cached = configuration.imageCache?.image(for: imageKey) {
            await statistics.record(.memoryHit)
            return ImageResponse(
                pixels: cached, source: .memory,
                metrics: .init(totalDuration: seconds(since: start), decodeDuration: 0, wasCoalesced: false))
        }
        do {
            let (result, coalesced) = try await imageTasks.value(
                for: imageKey, priority: request.priority, relatedKey: Self.dataTaskKey(for: request)
            ) { ticket, priority in
                try await self.loadImage(request, ticket: ticket, priority: priority)
            }
            if request.cachePolicy != .skipProcessedVariants {
                configuration.imageCache?.store(result.pixels, for: imageKey)
            }
            return ImageResponse(
                pixels: result.pixels, source: result.source,
                metrics: .init(
                    totalDuration: seconds(since: start), decodeDuration: result.decodeDuration,
                    wasCoalesced: coalesced))
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            await statistics.record(.failure)
            throw error
        }
    }

    /// Makes sure the data behind `request` is in the disk cache (and, with `decode`, its image in
    /// memory), at the request's priority.
    public func prefetch(_ request: ImageRequest, decode: Bool = false) async throws {
        if decode {
            _ = try await image(for: request)
        } else {
            _ = try await data(for: request)
        }
    }

    // MARK: - Work

    struct LoadedData: Sendable {
        enum Location: Sendable {
            case file(URL)
            case memory(Data)
        }
        var location: Location
        var source: ImageResponse.Source
    }

    private struct DecodedResult: Sendable {
        var pixels: PixelBuffer
        var source: ImageResponse.Source
        var decodeDuration: Double
    }

    private func loadImage(_ request: ImageRequest, ticket: UInt64, priority: WorkPriority) async throws -> DecodedResult {
        let variants =
            configuration.storesProcessedImagesOnDisk && request.cachePolicy == .useAll
            ? configuration.dataCache : nil
        let variantKey = "variant:" + request.imageKey
        if let variants, let stored = await variants.lookup(variantKey) {
            var original = request
            (original.target, original.processors) = (.original, [])
            if let result = try? await decode(
                LoadedData(location: .file(stored.fileURL), source: .disk),
                request: original, ticket: ticket, priority: priority)
            {
                return result
            }
            await variants.remove(variantKey)
        }
        let result = try await loadOriginal(request, ticket: ticket, priority: priority)
        if let variants, let png = try? ImageEncoder.encode(result.pixels, as: .png(compressionLevel: 1)) {
            await variants.store(png, for: variantKey, validators: HTTPValidators(), maxAge: nil)
        }
        return result
    }

    private func loadOriginal(_ request: ImageRequest, ticket: UInt64, priority: WorkPriority) async throws -> DecodedResult {
        var loaded = try await data(for: request).value
        do {
            return try await decode(loaded, request: request, ticket: ticket, priority: priority)
        } catch ImagePipelineError.decodingFailed(_) where loaded.source == .disk {
            // A damaged cache entry: drop it and fetch again.
            await configuration.dataCache?.remove(request.dataKey)
            var fresh = request
            fresh.cachePolicy = .reloadIgnoringCaches
            loaded = try await data(for: fresh).value
            return try await decode(loaded, request: request, ticket: ticket, priority: priority)
        }
    }

    private func decode(
        _ loaded: LoadedData, request: ImageRequest, ticket: UInt64, priority: WorkPriority
    ) async throws -> DecodedResult {
        let decoder = configuration.decoder
        let start = ContinuousClock.now
        let executor = configuration.executor
        let pixels = try await decodes.run(ticket: ticket, priority: priority) {
            try await executor.run(priority: priority) { context in
                let source: ImageSource =
                    switch loaded.location {
                    case .file(let url): .file(url.path)
                    case .memory(let data): .data(data)
                    }
                var pixels = try decoder.decode(source, for: request)
                for processor in request.processors {
                    try context.checkCancellation()
                    do {
                        pixels = try processor.process(pixels)
                    } catch let error as ImagePipelineError {
                        throw error
                    } catch {
                        throw ImagePipelineError.processingFailed(String(describing: error))
                    }
                }
                return pixels
            }
        }
        await statistics.record(.decode)
        return DecodedResult(pixels: pixels, source: loaded.source, decodeDuration: seconds(since: start))
    }

    func data(for request: ImageRequest) async throws -> (value: LoadedData, coalesced: Bool) {
        let usesDisk = request.cachePolicy != .memoryOnly ? configuration.dataCache : nil
        let readsDisk = request.cachePolicy != .reloadIgnoringCaches
        return try await dataTasks.value(for: Self.dataTaskKey(for: request), priority: request.priority) { ticket, priority in
            var validators: HTTPValidators?
            if readsDisk, let cache = usesDisk, let cached = await cache.lookup(request.dataKey) {
                if cached.isFresh {
                    await self.statistics.record(.diskHit)
                    return LoadedData(location: .file(cached.fileURL), source: .disk)
                }
                validators = cached.validators.isEmpty ? nil : cached.validators
            }
            let conditions = validators
            let fetched: FetchedData
            do {
                fetched = try await self.downloads.run(ticket: ticket, priority: priority) {
                    try await self.configuration.dataLoader.loadData(for: request.url, validators: conditions)
                }
            } catch let error as ImagePipelineError {
                if case .httpStatus = error { await self.statistics.record(.networkFetch) }  // the server answered
                throw error
            }
            await self.statistics.record(.networkFetch)
            switch fetched.outcome {
            case .notModified:
                guard let cache = usesDisk, let cached = await cache.lookup(request.dataKey) else {
                    throw ImagePipelineError.httpStatus(304)
                }
                await cache.refresh(request.dataKey, validators: fetched.validators, maxAge: fetched.maxAge)
                return LoadedData(location: .file(cached.fileURL), source: .disk)
            case .data(let data):
                guard let cache = usesDisk, !fetched.noStore else {
                    return LoadedData(location: .memory(data), source: .network)
                }
                await cache.store(data, for: request.dataKey, validators: fetched.validators, maxAge: fetched.maxAge)
                return LoadedData(location: .memory(data), source: .network)
            }
        }
    }

    private func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}

/// Counts of what a pipeline did.
public actor PipelineStatistics {
    /// What the pipeline records: a hit in either cache, a download, a decode, a failed request.
    public enum Event: Sendable { case memoryHit, diskHit, networkFetch, decode, failure }

    /// Requests answered from the memory cache.
    public private(set) var memoryHits = 0
    /// Requests whose bytes came from the disk cache.
    public private(set) var diskHits = 0
    /// Downloads made.
    public private(set) var networkFetches = 0
    /// Decodes made (with their processing).
    public private(set) var decodes = 0
    /// Requests that failed.
    public private(set) var failures = 0

    /// The counts now, as a `Codable` value.
    public var snapshot: Snapshot {
        Snapshot(networkFetches: networkFetches, diskHits: diskHits, memoryHits: memoryHits, decodes: decodes, failures: failures)
    }

    /// The counts at one moment (`tessera load --json`'s summary line has these keys).
    public struct Snapshot: Sendable, Hashable, Codable {
        /// Downloads made.
        public var networkFetches: Int
        /// Requests whose bytes came from the disk cache.
        public var diskHits: Int
        /// Requests answered from the memory cache.
        public var memoryHits: Int
        /// Decodes made.
        public var decodes: Int
        /// Requests that failed.
        public var failures: Int
    }

    func record(_ event: Event) {
        switch event {
        case .memoryHit: memoryHits += 1
        case .diskHit: diskHits += 1
        case .networkFetch: networkFetches += 1
        case .decode: decodes += 1
        case .failure: failures += 1
        }
    }
}
