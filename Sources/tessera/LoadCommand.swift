import ArgumentParser
import FoundationEssentials
import Tessera

struct LoadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Load images through the pipeline: memory cache, disk cache, network, with coalescing."
    )

    @Argument(help: "http, https or file URLs (plain paths are read as files).", transform: { text in (text, try Parse.url(text)) })
    var urls: [(text: String, url: URL)]

    @Option(help: "The view size in points, WxH.", transform: Parse.pointSize)
    var size: PointSize

    @Option(help: "Screen scale, > 0 (1, 2, 3).", transform: Parse.scale)
    var scale: DisplayScale = .x1

    @Option(help: "Disk cache directory (default: the user's cache directory).")
    var cacheDir: String?

    @Option(help: "Disk cache limit in MiB, ≥ 0.", transform: Parse.integer(0, 1 << 30))
    var diskLimit = 150

    @Option(help: "Memory cache limit in MiB, ≥ 0.", transform: Parse.integer(0, 1 << 30))
    var memoryLimit: Int?

    @Option(help: "Load every URL this many times, ≥ 1.", transform: Parse.integer(1, 1_000_000))
    var `repeat` = 1

    @Option(help: "Requests in flight at once, ≥ 1 (default: all at once).", transform: Parse.integer(1))
    var concurrency: Int?

    @Option(help: "Write each loaded image here as PNG.")
    var outputDir: String?

    @OptionGroup var report: JSONOption

    func run() async throws {
        let cacheDirectory = cacheDir.map { URL(fileURLWithPath: $0) } ?? DiskCache.defaultDirectory
        let memory = memoryLimit.map { MemoryImageCache(costLimit: $0 << 20) } ?? MemoryImageCache()
        let pipeline = ImagePipeline(
            configuration: .init(
                dataCache: DiskCache(directory: cacheDirectory, sizeLimit: diskLimit << 20), imageCache: memory))
        if let outputDir { try FileManager.default.createDirectory(atPath: outputDir, withIntermediateDirectories: true) }
        let requests = (0..<`repeat`).flatMap { _ in urls }
        let target = ImageRequest.Target.size(size, scale: scale)
        let json = report.json
        let progress = ProgressBar(total: requests.count, enabled: !json && standardErrorIsTerminal)
        let failures = FailureLog()
        let outputDir = self.outputDir
        await withTaskGroup(of: Void.self) { group in
            var pending = requests.enumerated().makeIterator()
            func startNext() {
                guard let (index, (text, url)) = pending.next() else { return }
                let request = ImageRequest(url: url, target: target)
                group.addTask {
                    let start = ContinuousClock.now
                    do {
                        let response = try await pipeline.image(for: request)
                        if let outputDir {
                            let name = String(cFormat: "%04d-", index) + url.deletingPathExtension().lastPathComponent + ".png"
                            try ImageEncoder.encode(response.pixels, as: .png())
                                .write(to: URL(fileURLWithPath: outputDir).appendingPathComponent(name), options: .atomic)
                        }
                        progress.clear()
                        if json {
                            printJSON([
                                "url": .string(text), "source": .string(response.source.rawValue),
                                "width": .int(response.pixels.width), "height": .int(response.pixels.height),
                                "decodedBytes": .int(response.pixels.byteCount),
                                "ms": .double((ContinuousClock.now - start).milliseconds),
                            ])
                        }
                    } catch {
                        progress.clear()
                        if json { printJSON(["url": .string(text), "error": .string(oneLine("\(error)"))]) }
                        failures.report(text, error)
                    }
                    progress.advance()
                }
            }
            for _ in 0..<min(concurrency ?? requests.count, requests.count) { startNext() }
            for await _ in group { startNext() }
        }
        progress.finish()
        let summary = await pipeline.statistics.snapshot
        if json {
            printJSON(["summary": .bool(true), "requests": .int(requests.count)], summary)
        } else {
            print(
                "\(requests.count) requests: \(summary.networkFetches) network fetches, \(summary.diskHits) disk hits, "
                    + "\(summary.memoryHits) memory hits, \(summary.decodes) decodes, \(summary.failures) failures")
        }
        try failures.exit()
    }
}
