import Foundation
import TesseraCodecs
import TesseraCore
import Testing

@testable import TesseraPipeline

let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures")
let photo = try! Data(contentsOf: fixtures.appendingPathComponent("jpeg-exif-thumbnail.jpg"))

func temporaryDirectory() -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("tessera-pipeline-\(UUID().uuidString)")
}

/// A pipeline with its own disk cache directory and memory cache.
func makePipeline(
    directory: URL, loader: any DataLoading = HTTPDataLoader(timeout: 5), downloads: Int = 6,
    memory: MemoryImageCache = MemoryImageCache(costLimit: 64 << 20)
) -> ImagePipeline {
    ImagePipeline(
        configuration: .init(
            dataLoader: loader, dataCache: DiskCache(directory: directory), imageCache: memory,
            maximumConcurrentDownloads: downloads))
}

@Suite("Image pipeline over a real HTTP server", .serialized)
struct PipelineTests {
    let server: TestHTTPServer
    let directory = temporaryDirectory()

    init() throws {
        server = try TestHTTPServer()
        server.route("/photo.jpg", .init(body: photo, headers: [("Content-Type", "image/jpeg")], delay: 0.2))
    }

    func cleanUp() {
        server.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }

    @Test("50 concurrent identical requests: one download, one decode, every caller gets the image")
    func coalescing() async throws {
        defer { cleanUp() }
        let pipeline = makePipeline(directory: directory)
        let request = ImageRequest(url: server.url("/photo.jpg"), target: .maxPixelSize(100))
        let responses = try await withThrowingTaskGroup(of: ImageResponse.self) { group in
            for _ in 0..<50 { group.addTask { try await pipeline.image(for: request) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(responses.count == 50)
        #expect(responses.allSatisfy { $0.pixels.size == PixelSize(width: 100, height: 75) })
        #expect(server.requestCount("/photo.jpg") == 1)
        #expect(await pipeline.statistics.decodes == 1)
        #expect(responses.filter { !$0.metrics.wasCoalesced && $0.source == .network }.count == 1)
    }

    @Test("different sizes of one URL share the download and decode separately")
    func sizesShareDownload() async throws {
        defer { cleanUp() }
        let pipeline = makePipeline(directory: directory)
        async let small = pipeline.image(for: ImageRequest(url: server.url("/photo.jpg"), target: .maxPixelSize(64)))
        async let large = pipeline.image(for: ImageRequest(url: server.url("/photo.jpg"), target: .maxPixelSize(200)))
        let (a, b) = try await (small, large)
        #expect(a.pixels.size.longestSide == 64 && b.pixels.size.longestSide == 200)
        #expect(server.requestCount("/photo.jpg") == 1)
        #expect(await pipeline.statistics.decodes == 2)
    }

    @Test("the memory cache answers repeats; a second pipeline on the same directory reads the disk")
    func persistence() async throws {
        defer { cleanUp() }
        let request = ImageRequest(url: server.url("/photo.jpg"), target: .size(PointSize(width: 50, height: 50), scale: .x2))
        let first = makePipeline(directory: directory)
        #expect(try await first.image(for: request).source == .network)
        #expect(try await first.image(for: request).source == .memory)
        let second = makePipeline(directory: directory)
        let again = try await second.image(for: request)
        #expect(again.source == .disk)
        #expect(again.pixels.size == PixelSize(width: 100, height: 75))
        #expect(server.requestCount("/photo.jpg") == 1)
        #expect(await second.statistics.networkFetches == 0)
    }

    @Test("a stale entry is revalidated with its ETag; 304 refreshes it without a body")
    func revalidation() async throws {
        defer { cleanUp() }
        server.route("/etag.jpg", .init(body: photo, headers: [("ETag", "\"v1\""), ("Cache-Control", "max-age=0")]))
        let request = ImageRequest(url: server.url("/etag.jpg"), target: .maxPixelSize(32))
        _ = try await makePipeline(directory: directory).image(for: request)
        let response = try await makePipeline(directory: directory).image(for: request)
        #expect(response.source == .disk)
        let logged = server.requests.filter { $0.path == "/etag.jpg" }
        #expect(logged.count == 2)
        #expect(logged.last?.headers["if-none-match"] == "\"v1\"")
        #expect(logged.last?.status == 304)
    }

    @Test("Cache-Control: no-store keeps the bytes off the disk")
    func noStore() async throws {
        defer { cleanUp() }
        server.route("/secret.jpg", .init(body: photo, headers: [("Cache-Control", "no-store")]))
        let request = ImageRequest(url: server.url("/secret.jpg"), target: .maxPixelSize(32))
        _ = try await makePipeline(directory: directory).image(for: request)
        _ = try await makePipeline(directory: directory).image(for: request)
        #expect(server.requestCount("/secret.jpg") == 2)
        #expect(await DiskCache(directory: directory).count == 0)
    }

    @Test("a truncated disk entry is dropped and fetched again")
    func corruptEntryRefetched() async throws {
        defer { cleanUp() }
        let request = ImageRequest(url: server.url("/photo.jpg"), target: .maxPixelSize(32))
        _ = try await makePipeline(directory: directory).image(for: request)
        let file = directory.appendingPathComponent(DiskCache.fileName(for: request.dataKey))
        try Data(photo.prefix(1000)).write(to: file)
        let response = try await makePipeline(directory: directory).image(for: request)
        #expect(response.source == .network)
        #expect(server.requestCount("/photo.jpg") == 2)
    }

    @Test("redirects are followed; a body over the size limit is a typed error")
    func redirectsAndSizeLimit() async throws {
        defer { cleanUp() }
        server.route("/moved", .init(status: .found, headers: [("Location", server.url("/photo.jpg").absoluteString)]))
        // Generous timeouts: this test is not about them, and a loaded machine must not fail it.
        let loader = HTTPDataLoader(timeout: 60)
        guard case .data(let data) = try await loader.loadData(for: server.url("/moved"), validators: nil).outcome else {
            Issue.record("expected data")
            return
        }
        #expect(data == photo)
        let small = HTTPDataLoader(timeout: 60, maximumResponseSize: 1000)
        await #expect(throws: ImagePipelineError.responseTooLarge(limit: 1000)) {
            _ = try await small.loadData(for: server.url("/photo.jpg"), validators: nil)
        }
    }

    @Test("404, 500, a timeout, a refused connection and undecodable bytes fail alone; the others complete")
    func failures() async throws {
        defer { cleanUp() }
        server.route("/500", .init(status: .internalServerError))
        // The deadline leaves a loaded machine room for the answering routes; /slow is far beyond it.
        server.route("/slow", .init(body: photo, delay: 60))
        server.route("/text", .init(body: Data("not an image".utf8)))
        let pipeline = makePipeline(directory: directory, loader: HTTPDataLoader(timeout: 5))
        let refused = URL(string: "http://127.0.0.1:1/x.jpg")!
        let urls = [server.url("/missing"), server.url("/500"), server.url("/slow"), refused, server.url("/text"), server.url("/photo.jpg")]
        var outcomes: [Result<ImageResponse, any Error>] = []
        for url in urls {
            do { outcomes.append(.success(try await pipeline.image(for: ImageRequest(url: url, target: .maxPixelSize(16))))) } catch {
                outcomes.append(.failure(error))
            }
        }
        func error(_ index: Int) -> ImagePipelineError? {
            if case .failure(let error) = outcomes[index] { return error as? ImagePipelineError }
            return nil
        }
        #expect(error(0) == .httpStatus(404))
        #expect(error(1) == .httpStatus(500))
        #expect(error(2) == .timedOut)
        if case .connectionFailed = error(3) {} else { Issue.record("expected connectionFailed, got \(String(describing: error(3)))") }
        #expect(error(4) == .decodingFailed(.unknownFormat))
        #expect((try? outcomes[5].get())?.pixels.size.longestSide == 16)
        #expect(await pipeline.statistics.failures == 5)
    }
}

@Suite("Cache policies, variants and prefetching", .serialized)
struct PolicyTests {
    @Test("reload ignores both caches; memoryOnly never touches the disk; skipProcessedVariants keeps memory clean")
    func policies() async throws {
        let server = try TestHTTPServer()
        let directory = temporaryDirectory()
        defer { server.shutdown(); try? FileManager.default.removeItem(at: directory) }
        server.route("/p.jpg", .init(body: photo))
        let memory = MemoryImageCache(costLimit: 64 << 20)
        let pipeline = makePipeline(directory: directory, memory: memory)
        let url = server.url("/p.jpg")
        _ = try await pipeline.image(for: ImageRequest(url: url, target: .maxPixelSize(20)))
        let reload = try await pipeline.image(for: ImageRequest(url: url, target: .maxPixelSize(20), cachePolicy: .reloadIgnoringCaches))
        #expect(reload.source == .network)
        #expect(server.requestCount("/p.jpg") == 2)

        let memoryOnly = ImageRequest(url: server.url("/m.jpg"), target: .maxPixelSize(20), cachePolicy: .memoryOnly)
        server.route("/m.jpg", .init(body: photo))
        _ = try await pipeline.image(for: memoryOnly)
        #expect(await DiskCache(directory: directory).lookup(memoryOnly.dataKey) == nil)
        #expect(try await pipeline.image(for: memoryOnly).source == .memory)

        let variant = ImageRequest(url: url, target: .maxPixelSize(21), cachePolicy: .skipProcessedVariants)
        let fromDisk = try await pipeline.image(for: variant)
        #expect(fromDisk.source == .disk)
        #expect(memory.image(for: variant.imageKey) == nil)
    }

    @Test("with processed variants on disk, a new pipeline serves the display-sized image without the original")
    func processedVariantsOnDisk() async throws {
        let server = try TestHTTPServer()
        let directory = temporaryDirectory()
        defer { server.shutdown(); try? FileManager.default.removeItem(at: directory) }
        server.route("/v.jpg", .init(body: photo))
        func pipeline() -> ImagePipeline {
            ImagePipeline(
                configuration: .init(
                    dataLoader: HTTPDataLoader(timeout: 5), dataCache: DiskCache(directory: directory),
                    imageCache: nil, storesProcessedImagesOnDisk: true))
        }
        let request = ImageRequest(url: server.url("/v.jpg"), target: .maxPixelSize(50), processors: [GaussianBlurProcessor(radius: 1)])
        let first = try await pipeline().image(for: request)
        #expect(await DiskCache(directory: directory).count == 2)  // original and variant
        await DiskCache(directory: directory).remove(request.dataKey)  // the original is gone…
        let second = try await pipeline().image(for: request)  // …the variant suffices
        #expect(second.source == .disk)
        #expect(second.pixels == first.pixels)
        #expect(server.requestCount("/v.jpg") == 1)
    }

    @Test("the prefetcher fills the disk cache at low priority and stops on request")
    func prefetcher() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let loader = GatedLoader()
        let pipeline = makePipeline(directory: directory, loader: loader)
        let prefetcher = ImagePrefetcher(pipeline: pipeline)
        let keep = ImageRequest(url: URL(string: "http://x/keep.jpg")!)
        let drop = ImageRequest(url: URL(string: "http://x/drop.jpg")!)
        prefetcher.startPrefetching([keep, drop])
        await eventually { await loader.waitingCount == 2 }
        prefetcher.stopPrefetching([drop])
        await loader.release()
        await eventually { prefetcher.activeCount == 0 }
        #expect(await loader.sawCancellation == ["drop.jpg"])
        #expect(await DiskCache(directory: directory).lookup(keep.dataKey) != nil)
        #expect(await DiskCache(directory: directory).lookup(drop.dataKey) == nil)
        #expect(await pipeline.statistics.decodes == 0)
    }
}
