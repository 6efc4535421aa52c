import ArgumentParser
import Foundation
import Tessera

struct LoadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Load images through the pipeline: memory cache, disk cache, network, with coalescing."
    )

    @Argument(help: "http, https or file URLs (plain paths are read as files).")
    var urls: [String]

    @Option(help: "The view size in points, WxH.")
    var size: String

    @Option(help: "Screen scale (1, 2, 3).")
    var scale = 1.0

    @Option(help: "Disk cache directory (default: the user's cache directory).")
    var cacheDir: String?

    @Option(help: "Disk cache limit in MiB.")
    var diskLimit = 150

    @Option(help: "Memory cache limit in MiB.")
    var memoryLimit: Int?

    @Option(help: "Load every URL this many times.")
    var `repeat` = 1

    @Option(help: "Requests in flight at once (default: all at once).")
    var concurrency: Int?

    @Option(help: "Write each loaded image here as PNG.")
    var outputDir: String?

    @Flag(help: "One JSON object per finished request, then a summary line.")
    var json = false

    func validate() throws {
        guard pointSize != nil else { throw ValidationError("--size takes WxH in points, e.g. 100x100") }
        guard scale > 0, `repeat` >= 1, (concurrency ?? 1) >= 1, diskLimit >= 0 else {
            throw ValidationError("--scale, --repeat and --concurrency must be positive")
        }
    }

    private var pointSize: PointSize? {
        let parts = size.lowercased().split(separator: "x")
        guard parts.count == 2, let width = Double(parts[0]), let height = Double(parts[1]), width > 0, height > 0 else { return nil }
        return PointSize(width: width, height: height)
    }

    private func url(_ text: String) -> URL {
        text.contains("://") ? (URL(string: text) ?? URL(fileURLWithPath: text)) : URL(fileURLWithPath: text)
    }

    func run() async throws {
        let cacheDirectory = cacheDir.map { URL(fileURLWithPath: $0) } ?? DiskCache.defaultDirectory
        let memory = memoryLimit.map { MemoryImageCache(costLimit: $0 << 20) } ?? MemoryImageCache()
        let pipeline = ImagePipeline(configuration: .init(
            dataCache: DiskCache(directory: cacheDirectory, sizeLimit: diskLimit << 20), imageCache: memory))
        if let outputDir { try FileManager.default.createDirectory(atPath: outputDir, withIntermediateDirectories: true) }
        let requests = (0..<`repeat`).flatMap { _ in urls }
        let target = ImageRequest.Target.size(pointSize!, scale: DisplayScale(scale))
        let progress = ProgressBar(total: requests.count, enabled: !json && isatty(STDERR_FILENO) != 0)
        let limit = concurrency ?? requests.count
        let outputDir = self.outputDir
        let json = self.json
        await withTaskGroup(of: String?.self) { group in
            var pending = requests.enumerated().makeIterator()
            func startNext() {
                guard let (index, text) = pending.next() else { return }
                let request = ImageRequest(url: url(text), target: target)
                group.addTask {
                    let start = ContinuousClock.now
                    do {
                        let response = try await pipeline.image(for: request)
                        if let outputDir {
                            let name = String(format: "%04d-", index) + (request.url.deletingPathExtension().lastPathComponent) + ".png"
                            try ImageEncoder.encode(response.pixels, as: .png())
                                .write(to: URL(fileURLWithPath: outputDir).appendingPathComponent(name), options: .atomic)
                        }
                        guard json else { return nil }
                        return JSONLine([
                            ("url", .string(text)), ("source", .string(response.source.rawValue)),
                            ("width", .int(response.pixels.width)), ("height", .int(response.pixels.height)),
                            ("decodedBytes", .int(response.pixels.byteCount)), ("ms", .double((ContinuousClock.now - start).milliseconds)),
                        ]).rendered
                    } catch {
                        reportFailure(text, error)
                        return json ? JSONLine([("url", .string(text)), ("error", .string(String(describing: error)))]).rendered : nil
                    }
                }
            }
            for _ in 0..<min(limit, requests.count) { startNext() }
            for await line in group {
                progress.clear()
                if let line { print(line) }
                progress.advance()
                startNext()
            }
        }
        progress.finish()
        let stats = pipeline.statistics
        let (network, disk, memoryHits, decodes, failures) = (
            await stats.networkFetches, await stats.diskHits, await stats.memoryHits, await stats.decodes, await stats.failures)
        if json {
            print(JSONLine([
                ("summary", .bool(true)), ("requests", .int(requests.count)), ("networkFetches", .int(network)),
                ("diskHits", .int(disk)), ("memoryHits", .int(memoryHits)), ("decodes", .int(decodes)), ("failures", .int(failures)),
            ]).rendered)
        } else {
            print("\(requests.count) requests: \(network) network fetches, \(disk) disk hits, \(memoryHits) memory hits, "
                + "\(decodes) decodes, \(failures) failures")
        }
        if failures > 0 { throw ExitCode.failure }
    }
}
