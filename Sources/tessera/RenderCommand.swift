import ArgumentParser
import Foundation
import Tessera

struct RenderCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render a view of a tile pyramid headlessly, as a viewer would show it."
    )

    @Argument(help: "A .dzi file, an IIIF info.json, or a pyramid directory.")
    var source: String

    @Option(help: "Viewport size in points, WxH.")
    var viewport: String

    @Option(help: "Screen scale (1, 2, 3).")
    var scale = 1.0

    @Option(help: "Points per full-resolution image pixel (1 at scale 1 is 1:1). Default: fit the image.")
    var zoom: Double?

    @Option(help: "Full-resolution pixel at the viewport's centre, X,Y. Default: the image centre.")
    var center: String?

    @Option(help: "The PNG (or JPEG/WebP) to write.")
    var output: String

    @Flag(help: "Write the first frame: the coarse placeholder level only, before the visible tiles arrive.")
    var noWait = false

    @Flag(help: "Print each tile event (requested, cached, drawn, failed).")
    var timeline = false

    @Option(help: "Level bias: negative prefers sharper levels, positive cheaper ones.")
    var bias = 0.0

    func run() async throws {
        let parts = viewport.lowercased().split(separator: "x").compactMap { Double($0) }
        guard parts.count == 2, parts[0] > 0, parts[1] > 0 else { throw ValidationError("--viewport takes WxH points") }
        let pyramid: any TiledImageSource
        do {
            if source.hasPrefix("http://") || source.hasPrefix("https://"), let url = URL(string: source) {
                pyramid = try await RemotePyramidSource(url: url, pipeline: ImagePipeline())
            } else {
                pyramid = try LocalPyramidSource(path: source)
            }
        } catch {
            reportFailure(source, error)
            throw ExitCode.failure
        }
        var view = Viewport(size: PointSize(width: parts[0], height: parts[1]), scale: DisplayScale(scale), zoom: 1,
                            center: ImagePoint(x: 0, y: 0))
        view.fit(pyramid.imageSize)
        if let zoom { view.zoom(to: zoom) }
        if let center {
            let xy = center.split(separator: ",").compactMap { Double($0) }
            guard xy.count == 2 else { throw ValidationError("--center takes X,Y") }
            view.center = ImagePoint(x: xy[0], y: xy[1])
        }
        let engine = TiledViewEngine(source: pyramid, viewport: view, selector: LevelSelector(bias: bias))
        let start = ContinuousClock.now
        let printer = Task { [timeline] in
            for await event in engine.events where timeline {
                print(String(format: "%8.1f ms  ", (ContinuousClock.now - start).milliseconds) + Self.describe(event))
            }
        }
        await engine.start()
        if noWait {
            // The first frame: whatever has arrived once the single-tile placeholder level is in.
            let base = (0..<pyramid.levelCount).first { pyramid.layout.tileCount(reduction: $0) == 1 } ?? pyramid.levelCount - 1
            while engine.cachedTile(TileID(reduction: base, column: 0, row: 0)) == nil, ContinuousClock.now - start < .seconds(30) {
                try await Task.sleep(for: .milliseconds(5))
            }
        } else {
            await engine.waitUntilVisibleTilesLoaded(giveUpAfter: 4)
        }
        let result = await engine.render(background: (32, 32, 32))
        await engine.finish()
        await printer.value
        if timeline {
            print(String(format: "%8.1f ms  ", (ContinuousClock.now - start).milliseconds)
                + "drew \(view.pixelSize) at reduction \(await engine.reduction) "
                + "(\(result.placeholderPixelCount) pixels from coarser placeholders)")
        }
        let outputExtension = URL(fileURLWithPath: output).pathExtension
        guard let encoding = ImageEncoding(fileExtension: outputExtension) else {
            throw ValidationError("cannot write .\(outputExtension) files")
        }
        try ImageEncoder.encode(result.pixels, as: encoding).write(to: URL(fileURLWithPath: output), options: .atomic)
    }

    private static func describe(_ event: TiledViewEngine.Event) -> String {
        switch event {
        case .requested(let id, let priority): "requested \(id) (\(priority))"
        case .servedFromCache(let id): "served \(id) from cache"
        case .loaded(let id): "loaded \(id)"
        case .cancelled(let id): "cancelled \(id)"
        case .failed(let id, let attempt, let retry): String(format: "failed \(id) (attempt \(attempt), retry in %.2f s)", retry)
        case .invalidated(let x, let y, let width, let height):
            String(format: "invalidated %.0f,%.0f %.0f×%.0f pt", x, y, width, height)
        }
    }
}
