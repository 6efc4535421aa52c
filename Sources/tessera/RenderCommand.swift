import ArgumentParser
import FoundationEssentials
import Tessera

struct RenderCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render a view of a tile pyramid headlessly, as a viewer would show it."
    )

    @Argument(help: "A .dzi file, an IIIF info.json, or a pyramid directory.")
    var source: String

    @Option(help: "Viewport size in points, WxH.", transform: Parse.pointSize)
    var viewport: PointSize

    @Option(help: "Screen scale, > 0 (1, 2, 3).", transform: Parse.scale)
    var scale: DisplayScale = .x1

    @Option(help: "Points per full-resolution image pixel, > 0 (1 at scale 1 is 1:1). Default: fit the image.",
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
        let printer = Task { [timeline] in
            for await event in engine.events where timeline {
                print(String(cFormat: "%8.1f ms  ", (ContinuousClock.now - start).milliseconds) + Self.describe(event))
            }
        }
        await engine.start()
        if noWait {
            await engine.waitUntilPlaceholderLoaded(giveUpAfter: 4)
        } else {
            await engine.waitUntilVisibleTilesLoaded(giveUpAfter: 4)
        }
        let result = await engine.render(background: (32, 32, 32))
        await engine.finish()
        await printer.value
        if timeline {
            print(String(cFormat: "%8.1f ms  ", (ContinuousClock.now - start).milliseconds)
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
