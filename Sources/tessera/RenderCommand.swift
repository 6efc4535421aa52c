import ArgumentParser
import FoundationEssentials
import Tessera

struct RenderCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render a view of a tile pyramid or an image headlessly, as a viewer would show it.",
        discussion: """
            An image file is read as the pyramid it would be built into, with none built: each \
            tile from the source, at the cost of its decode (JPEG levels from the DCT's scaled \
            decodes), as `tessera serve` answers an unseen image.
            """
    )

    @Argument(help: "A .dzi file, an IIIF info.json, a pyramid directory (or URL), or an image file.")
    var source: String

    @Option(help: "Viewport size in points, WxH.", transform: Parse.pointSize)
    var viewport: PointSize

    @Option(help: "Screen scale, > 0 (1, 2, 3).", transform: Parse.scale)
    var scale: DisplayScale = .x1

    @Option(
        help: "Points per full-resolution image pixel, > 0 (1 at scale 1 is 1:1). Default: fit the image.",
        transform: Parse.number(greaterThan: 0))
    var zoom: Double?

    @Option(help: "Full-resolution pixel at the viewport's centre, X,Y. Default: the image centre.", transform: Parse.pixelPoint)
    var center: PixelPoint?

    @Option(help: "The PNG (or JPEG/WebP) to write.")
    var output: String

    @Flag(help: "Write the first frame: the coarse placeholder level only, before the visible tiles arrive.")
    var noWait = false

    @Flag(help: "Print each tile event (requested, cached, drawn, failed).")
    var timeline = false

    @Option(help: "Level bias, a finite number: negative prefers sharper levels, positive cheaper ones.", transform: Parse.finite)
    var bias = 0.0

    func validate() throws {
        do { _ = try EncodingFormat(outputPath: output) } catch { throw ValidationError(error.description) }
    }

    func run() async throws {
        let failures = FailureLog()
        let pyramid: any TiledImageSource
        do {
            if Parse.isRemote(source) {
                pyramid = try await RemotePyramidSource(url: try Parse.url(source), pipeline: ImagePipeline())
            } else if let image = try Self.imageFile(source) {
                pyramid = image
            } else {
                pyramid = try LocalPyramidSource(path: source)
            }
        } catch {
            failures.report(source, error)
            try failures.exit()
            return
        }
        var view = Viewport(size: viewport, scale: scale, zoom: 1, center: PixelPoint(x: 0, y: 0))
        view.fit(pyramid.imageSize)
        if let zoom { view.zoom(to: zoom) }
        if let center { view.center = center }
        let engine = TiledViewEngine(source: pyramid, viewport: view, selector: LevelSelector(bias: bias))
        let start = ContinuousClock.now
        // Tiles that failed and never loaded after (the engine retries): a render missing them fails.
        let printer = Task { [timeline] () -> Set<TileID> in
            var unread = Set<TileID>()
            for await event in engine.events {
                switch event {
                case .failed(let id, _, _): unread.insert(id)
                case .loaded(let id), .servedFromCache(let id): unread.remove(id)
                default: break
                }
                if timeline { print(String(cFormat: "%8.1f ms  ", (ContinuousClock.now - start).milliseconds) + Self.describe(event)) }
            }
            return unread
        }
        await engine.start()
        if noWait {
            await engine.waitUntilPlaceholderLoaded(giveUpAfter: 4)
        } else {
            await engine.waitUntilVisibleTilesLoaded(giveUpAfter: 4)
        }
        let result = await engine.render(background: (32, 32, 32))
        await engine.finish()
        let unread = await printer.value
        if !unread.isEmpty {
            failures.report(source, RenderError.unreadTiles(unread.count))
            try failures.exit()
        }
        if timeline {
            print(
                String(cFormat: "%8.1f ms  ", (ContinuousClock.now - start).milliseconds)
                    + "drew \(view.bitmapSize) at reduction \(await engine.reduction) "
                    + "(\(result.placeholderPixelCount) pixels from coarser placeholders)")
        }
        do {
            try ImageEncoder.encode(result.pixels, as: try EncodingFormat(outputPath: output))
                .write(to: URL(fileURLWithPath: output), options: .atomic)
        } catch {
            failures.report(output, error)
        }
        try failures.exit()
    }

    /// `path` read as the pyramid it would be built into, when it is an image file rather than a
    /// pyramid's descriptor or directory.
    private static func imageFile(_ path: String) throws -> SourceTiles? {
        guard !path.hasSuffix(".dzi"), !path.hasSuffix(".json"), FileManager.default.isReadableFile(atPath: path) else { return nil }
        var isDirectory = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory else { return nil }
        // A kind's source (a slide, a pyramidal TIFF) is read from its own levels, as the server reads it.
        return SourceTiles(
            try RegionSourceKinds.levels(ofFileAt: path, kinds: RegionSourceKinds.standard(readers: TIFFReaderPool(readersPerFile: 2))))
    }

    private static func describe(_ event: TiledViewEngine.Event) -> String {
        switch event {
        case .requested(let id, let priority): "requested \(id) (\(priority))"
        case .servedFromCache(let id): "served \(id) from cache"
        case .loaded(let id): "loaded \(id)"
        case .cancelled(let id): "cancelled \(id)"
        case .failed(let id, let attempt, let retry): String(cFormat: "failed \(id) (attempt \(attempt), retry in %.2f s)", retry)
        case .invalidated(let x, let y, let width, let height):
            String(cFormat: "invalidated %.0f,%.0f %.0f×%.0f pt", x, y, width, height)
        }
    }
}

/// Why a render failed although its source opened.
enum RenderError: Error, CustomStringConvertible {
    case unreadTiles(Int)

    var description: String {
        switch self {
        case .unreadTiles(let count): "\(count) tile\(count == 1 ? "" : "s") of the view could not be read"
        }
    }
}
