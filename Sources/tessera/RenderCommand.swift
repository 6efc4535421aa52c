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
        let pyramid: LocalPyramidSource
        do {
            pyramid = try LocalPyramidSource(path: source)
        } catch {
            reportFailure(source, error)
            throw ExitCode.failure
        }
        let layout = pyramid.layout
        var view = Viewport(size: PointSize(width: parts[0], height: parts[1]), scale: DisplayScale(scale), zoom: 1,
                            center: ImagePoint(x: 0, y: 0))
        view.fit(layout.imageSize)
        if let zoom { view.zoom(to: zoom) }
        if let center {
            let xy = center.split(separator: ",").compactMap { Double($0) }
            guard xy.count == 2 else { throw ValidationError("--center takes X,Y") }
            view.center = ImagePoint(x: xy[0], y: xy[1])
        }
        let reduction = LevelSelector(bias: bias).reduction(
            screenPixelsPerImagePixel: view.screenPixelsPerImagePixel, levelCount: layout.levelCount)
        let start = ContinuousClock.now
        func event(_ text: String) {
            if timeline { print(String(format: "%8.1f ms  ", (ContinuousClock.now - start).milliseconds) + text) }
        }
        // First the finest level that is a single tile: it stands in for everything while the rest arrives.
        let coarsest = (0..<layout.levelCount).first { layout.tileCount(reduction: $0) == 1 } ?? layout.levelCount - 1
        let everything = ImageRect(minX: 0, minY: 0, maxX: Double(layout.imageSize.width), maxY: Double(layout.imageSize.height))
        var loaded: [TileID: PixelBuffer] = [:]
        loaded.merge(try await load(layout.tiles(reduction: coarsest, covering: everything), from: pyramid, event: event)) { a, _ in a }
        let visible = noWait ? [] : layout.tiles(reduction: reduction, covering: view.visibleRect)
        loaded.merge(try await load(visible.filter { loaded[$0] == nil }, from: pyramid, event: event)) { a, _ in a }
        let result = TileRenderer(background: (32, 32, 32)).render(view, layout: layout, reduction: reduction) { loaded[$0] }
        event("drew \(view.pixelSize) at level reduction \(reduction) "
            + "(\(result.placeholderPixelCount) pixels from coarser placeholders)")
        let outputExtension = URL(fileURLWithPath: output).pathExtension
        guard let encoding = ImageEncoding(fileExtension: outputExtension) else {
            throw ValidationError("cannot write .\(outputExtension) files")
        }
        try ImageEncoder.encode(result.pixels, as: encoding).write(to: URL(fileURLWithPath: output), options: .atomic)
    }

    /// Loads tiles six at a time, in the order given (centre outwards), reporting each.
    private func load(
        _ ids: [TileID], from pyramid: LocalPyramidSource, event: (String) -> Void
    ) async throws -> [TileID: PixelBuffer] {
        var tiles: [TileID: PixelBuffer] = [:]
        for id in ids { event("requested \(id)") }
        try await withThrowingTaskGroup(of: (TileID, PixelBuffer?).self) { group in
            var pending = ids.makeIterator()
            func next() {
                guard let id = pending.next() else { return }
                group.addTask { (id, try? await pyramid.tile(reduction: id.reduction, column: id.column, row: id.row)) }
            }
            for _ in 0..<6 { next() }
            for try await (id, pixels) in group {
                if let pixels {
                    tiles[id] = pixels
                    event("loaded \(id)")
                } else {
                    event("failed \(id)")
                }
                next()
            }
        }
        return tiles
    }
}
