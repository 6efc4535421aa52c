import Prometheus
import TesseraCore

/// The server's Prometheus metrics, all named `tessera_…`, in a registry of its own (not swift-metrics'
/// process-wide bootstrap, so several servers in one process — tests — keep separate counts).
final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    /// Counters and histograms by label values, made once (the registry would dedupe, but only after
    /// building its descriptor and key each time, on every request).
    private let requestCounters = Locked<[RequestKey: Counter]>([:])
    private let cacheCounters = Locked<[CacheKey: Counter]>([:])
    /// Made at the start, so counting a step (on the event loop, for every IIIF request) takes no lock.
    private let stepCounters: [RequestStep: Counter]
    private let latencies = Locked<[String: DurationHistogram]>([:])
    private let buildCounter: Counter
    private let sourceDecodeCounter: Counter
    private let abandonedWorkCounter: Counter
    private let buildSeconds: DurationHistogram
    private let queueDepth: Gauge
    /// Whether series per source identity are kept: not when access control restricts any image
    /// (`/metrics` is public, and what was zoomed into, and how large, is a source's detail).
    let perSourceDetail: Bool
    /// Per source identity, the gauges of its pyramids' bytes and files on disk.
    private let pyramidDisk = Locked<[String: (bytes: Gauge, files: Gauge)]>([:])

    private struct RequestKey: Hashable {
        let route: String
        let status: Int
    }

    private struct CacheKey: Hashable {
        let tier: String
        let hit: Bool
    }

    private static let latencyBuckets: [Duration] = [
        .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
        .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
        .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10), .seconds(30),
    ]

    init(perSourceDetail: Bool = true) {
        self.perSourceDetail = perSourceDetail
        buildCounter = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "tessera", metricName: "pyramid_builds", unitName: "total",
                helpText: "Pyramids built into the derivative cache"))
        sourceDecodeCounter = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "tessera", metricName: "source_level_decodes", unitName: "total",
                helpText: "Whole levels decoded from sources (concurrent requests for one level share one)"))
        abandonedWorkCounter = registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "tessera", metricName: "abandoned_work", unitName: "total",
                helpText: "Renders and decodes stopped because every client waiting for them had gone"))
        buildSeconds = registry.makeDurationHistogram(
            descriptor: MetricNameDescriptor(
                namespace: "tessera", metricName: "pyramid_build_duration", unitName: "seconds",
                helpText: "Time to build one pyramid"),
            buckets: [
                .milliseconds(100), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5),
                .seconds(10), .seconds(30), .seconds(60), .seconds(120),
            ])
        let registry = self.registry
        stepCounters = Dictionary(
            uniqueKeysWithValues: RequestStep.allCases.map { step in
                let counter = registry.makeCounter(
                    descriptor: MetricNameDescriptor(
                        namespace: "tessera", metricName: "request_steps", unitName: "total",
                        helpText: "URLs parsed, identifiers resolved in full, and source headers read"),
                    labels: [("step", step.rawValue)])
                return (step, counter)
            })
        queueDepth = registry.makeGauge(
            descriptor: MetricNameDescriptor(
                namespace: "tessera", metricName: "work_queue_depth", unitName: "jobs",
                helpText: "Blocking jobs waiting for a worker thread"))
    }

    /// Counts one answered request and its latency, by route name (`iiif_image`, `dzi_tile`…) and status.
    func recordRequest(route: String, status: Int, duration: Duration) {
        counter(in: requestCounters, RequestKey(route: route, status: status)) { registry in
            registry.makeCounter(
                descriptor: MetricNameDescriptor(
                    namespace: "tessera", metricName: "http_requests", unitName: "total",
                    helpText: "HTTP requests answered, by route and status"),
                labels: [("route", route), ("status", String(status))])
        }.increment()
        let histogram = latencies.withLock { histograms in
            if let histogram = histograms[route] { return histogram }
            let histogram = registry.makeDurationHistogram(
                descriptor: MetricNameDescriptor(
                    namespace: "tessera", metricName: "http_request_duration", unitName: "seconds",
                    helpText: "Time from request to response head, by route"),
                labels: [("route", route)], buckets: Self.latencyBuckets)
            histograms[route] = histogram
            return histogram
        }
        histogram.record(duration)
    }

    /// Counts a lookup in one cache tier (`response`, `decoded`, `pyramid`).
    func recordCache(tier: String, hit: Bool) {
        counter(in: cacheCounters, CacheKey(tier: tier, hit: hit)) { registry in
            registry.makeCounter(
                descriptor: MetricNameDescriptor(
                    namespace: "tessera", metricName: "cache_lookups", unitName: "total",
                    helpText: "Cache lookups by tier and result"),
                labels: [("tier", tier), ("result", hit ? "hit" : "miss")])
        }.increment()
    }

    /// The counter for `key` in `counters`, made in the registry the first time (two first uses at
    /// once get the same counter: the registry dedupes by name and labels).
    private func counter<Key: Hashable & Sendable>(
        in counters: Locked<[Key: Counter]>, _ key: Key, make: (PrometheusCollectorRegistry) -> Counter
    ) -> Counter {
        if let counter = counters.withLock({ $0[key] }) { return counter }
        let counter = make(registry)
        counters.withLock { $0[key] = counter }
        return counter
    }

    /// A step every request takes before it is answered, counted so it is seen to be taken once:
    /// the URL parsed (on either door), the identifier resolved in full, the source's header read;
    /// and how a source read in place is answered: a stored tile sent as stored (pass-through), or
    /// pixels read from it (a tile, a region; whole levels are `tessera_source_level_decodes_total`).
    enum RequestStep: String, Sendable, CaseIterable {
        case parse = "iiif_parse"
        case resolution = "identifier_resolution"
        case headerRead = "header_read"
        case storedTilePassThrough = "stored_tile_passthrough"
        case sourceRead = "source_read"
    }

    /// Counts one `step`, as `tessera_request_steps_total{step}`.
    func record(_ step: RequestStep) { stepCounters[step]?.increment() }

    /// Counts a whole level decoded from a source (not derived from another level or a cache).
    func recordSourceDecode() { sourceDecodeCounter.increment() }

    /// Counts a render or decode stopped before its end because every client waiting for it had
    /// disconnected (or its deadline passed).
    func recordAbandonedWork() { abandonedWorkCounter.increment() }

    /// What `source`'s pyramids (a source identity: device, inode, size, mtime) hold on disk now,
    /// as `tessera_pyramid_disk_bytes{source}` and `tessera_pyramid_disk_files{source}`: what
    /// deriving it cost. Only sources that were zoomed into have any.
    func recordPyramidDisk(source: String, usage: DiskUsage) {
        guard perSourceDetail else { return }
        let gauges = pyramidDisk.withLock { gauges in
            if let known = gauges[source] { return known }
            let made = (
                bytes: registry.makeGauge(
                    descriptor: MetricNameDescriptor(
                        namespace: "tessera", metricName: "pyramid_disk", unitName: "bytes",
                        helpText: "Bytes of a source's pyramids on disk, by source identity"), labels: [("source", source)]),
                files: registry.makeGauge(
                    descriptor: MetricNameDescriptor(
                        namespace: "tessera", metricName: "pyramid_disk", unitName: "files",
                        helpText: "Files of a source's pyramids on disk, by source identity"), labels: [("source", source)])
            )
            gauges[source] = made
            return made
        }
        gauges.bytes.set(Double(usage.bytes))
        gauges.files.set(Double(usage.files))
    }

    /// Drops `source`'s disk gauges (its pyramids were evicted).
    func forgetPyramidDisk(source: String) {
        guard let gauges = pyramidDisk.withLock({ $0.removeValue(forKey: source) }) else { return }
        registry.unregisterGauge(gauges.bytes)
        registry.unregisterGauge(gauges.files)
    }

    func recordPyramidBuild(duration: Duration) {
        buildCounter.increment()
        buildSeconds.record(duration)
    }

    /// The Prometheus text exposition, with the queue depth read now.
    func exposition(queuedJobs: Int) -> [UInt8] {
        queueDepth.set(Double(queuedJobs))
        return registry.emitToBuffer()
    }
}
