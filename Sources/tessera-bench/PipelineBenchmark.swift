// The image pipeline benchmark of `make bench`: Tessera's ImagePipeline against a plain baseline
// (download, full decode, resize; no caching, no coalescing, no limits), in the same process and run.
// Usage: tessera-bench BASE_URL NAME... (the images are served over HTTP by the caller)
import AsyncHTTPClient
import Foundation
import Tessera

#if canImport(Glibc)
    import Glibc
#endif

func elapsed(_ start: ContinuousClock.Instant) -> Double {
    let duration = ContinuousClock.now - start
    return Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}

/// What an app without a pipeline does: download, decode at full size, resize to the cell.
func baseline(_ url: URL) async throws -> PixelBuffer {
    let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url.absoluteString), timeout: .seconds(60))
    let body = try await response.body.collect(upTo: 256 << 20)
    let decoded = try ImageDecoder().decode(.data(Data(body.readableBytesView)))
    let upright = decoded.properties.orientation.apply(to: decoded.pixels)
    return try ResizeProcessor(size: PixelSize(width: 300, height: 300)).process(upright)
}

func threadCount() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0 }

func peakResidentMegabytes() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_maxrss) / 1024
}

func pipeline(cacheDirectory: URL) -> ImagePipeline {
    ImagePipeline(configuration: .init(dataCache: DiskCache(directory: cacheDirectory, sizeLimit: 1 << 30)))
}

@main
struct PipelineBenchmark {
    static func main() async throws {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard arguments.count >= 3, let mode = arguments.first, let base = URL(string: arguments[1]) else {
            print("usage: tessera-bench latency|throughput|storm|storm-baseline BASE_URL NAME...")
            exit(2)
        }
        let names = Array(arguments.dropFirst(2))
        let target = ImageRequest.Target.size(PointSize(width: 100, height: 100), scale: .x3)
        let cacheDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-bench-\(getpid())")

        switch mode {
        case "latency": try await latency(base.appendingPathComponent(names[0]), target: target, cacheDirectory: cacheDirectory)
        case "throughput": try await throughput(names.map { base.appendingPathComponent($0) }, target: target, cacheDirectory: cacheDirectory)
        case "storm", "storm-baseline": try await storm(mode, base: base, names: names, target: target, cacheDirectory: cacheDirectory)
        default:
            print("unknown mode \(mode)")
            exit(2)
        }
        try? FileManager.default.removeItem(at: cacheDirectory)
    }

    /// Memory hits: one image, requested again and again, beside the plain way.
    static func latency(_ url: URL, target: ImageRequest.Target, cacheDirectory: URL) async throws {
        let images = pipeline(cacheDirectory: cacheDirectory)
        _ = try await images.image(for: ImageRequest(url: url, target: target))
        var hits: [Double] = []
        for _ in 0..<10_000 {
            let start = ContinuousClock.now
            _ = try await images.image(for: ImageRequest(url: url, target: target))
            hits.append(elapsed(start))
        }
        var plain: [Double] = []
        for _ in 0..<20 {
            let start = ContinuousClock.now
            _ = try await baseline(url)
            plain.append(elapsed(start))
        }
        print(String(format: "  memory hit   p50 %8.1f µs  p99 %8.1f µs", percentile(hits, 0.5) * 1e6, percentile(hits, 0.99) * 1e6))
        print(
            String(
                format: "  baseline     p50 %8.1f µs  p99 %8.1f µs   (%.0f× slower at p50)",
                percentile(plain, 0.5) * 1e6, percentile(plain, 0.99) * 1e6, percentile(plain, 0.5) / percentile(hits, 0.5)))
    }

    /// Disk hits: every image already downloaded by an earlier pipeline; a fresh pipeline decodes them.
    static func throughput(_ urls: [URL], target: ImageRequest.Target, cacheDirectory: URL) async throws {
        let warm = pipeline(cacheDirectory: cacheDirectory)
        for url in urls { try await warm.prefetch(ImageRequest(url: url, target: target)) }
        let cold = pipeline(cacheDirectory: cacheDirectory)
        var start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for url in urls { group.addTask { _ = try await cold.image(for: ImageRequest(url: url, target: target)) } }
            try await group.waitForAll()
        }
        let pipelineRate = Double(urls.count) / elapsed(start)
        let diskHits = await cold.statistics.diskHits
        start = ContinuousClock.now
        for url in urls { _ = try await baseline(url) }
        let baselineRate = Double(urls.count) / elapsed(start)
        print(String(format: "  disk hits    %7.1f images/s (%d of %d from disk)", pipelineRate, diskHits, urls.count))
        print(String(format: "  baseline     %7.1f images/s   (pipeline %.1f× faster)", baselineRate, pipelineRate / baselineRate))
    }

    /// 1,000 distinct URLs at once: prefetched into the disk cache (`storm`), or loaded the plain way.
    static func storm(_ mode: String, base: URL, names: [String], target: ImageRequest.Target, cacheDirectory: URL) async throws {
        let urls = (0..<1000).map { URL(string: base.appendingPathComponent(names[$0 % names.count]).absoluteString + "?n=\($0)")! }
        let before = threadCount()
        let start = ContinuousClock.now
        let sampler = Task {
            var peak = 0
            while !Task.isCancelled {
                peak = max(peak, threadCount())
                try? await Task.sleep(for: .milliseconds(5))
            }
            return peak
        }
        let images = pipeline(cacheDirectory: cacheDirectory)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for url in urls {
                group.addTask {
                    if mode == "storm" {
                        try await images.prefetch(ImageRequest(url: url, target: target, priority: .low))
                    } else {
                        _ = try await baseline(url)
                    }
                }
            }
            try await group.waitForAll()
        }
        let seconds = elapsed(start)
        sampler.cancel()
        let peakThreads = await sampler.value
        print(
            String(
                format: "  %-12@ %6.2f s  peak threads %3d (%d before, %d cores)  peak RSS %6.1f MB",
                mode == "storm" ? "prefetch" : "baseline", seconds, peakThreads, before,
                ProcessInfo.processInfo.activeProcessorCount, peakResidentMegabytes()))
    }
}
