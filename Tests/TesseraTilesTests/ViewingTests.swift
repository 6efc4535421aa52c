import Foundation
import TesseraCodecs
import TesseraCore
import TesseraTestSupport
import TesseraViewing
import Testing

@testable import TesseraTiles

@Suite("Viewing pyramids")
struct ViewingTests {
    let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    @Test("level selection: at and between every boundary, and clamped beyond both ends")
    func levelSelection() {
        let selector = LevelSelector()
        let levels = 10
        for k in 0..<levels {
            let density = 1 / Double(1 << k)  // exactly at level k's resolution
            #expect(selector.reduction(screenPixelsPerImagePixel: density, levelCount: levels) == k)
            // Slightly denser than level k: level k no longer suffices, the finer one is chosen.
            if k > 0 { #expect(selector.reduction(screenPixelsPerImagePixel: density * 1.01, levelCount: levels) == k - 1) }
            // Between k and k + 1: k still meets the density.
            #expect(selector.reduction(screenPixelsPerImagePixel: density * 0.75, levelCount: levels) == min(k, levels - 1))
        }
        #expect(selector.reduction(screenPixelsPerImagePixel: 40, levelCount: levels) == 0)  // magnified
        #expect(selector.reduction(screenPixelsPerImagePixel: 1e-9, levelCount: levels) == 9)  // tiny
        #expect(selector.reduction(screenPixelsPerImagePixel: 0, levelCount: levels) == 9)
        #expect(LevelSelector(bias: -1).reduction(screenPixelsPerImagePixel: 0.25, levelCount: levels) == 1)
        #expect(LevelSelector(bias: 1).reduction(screenPixelsPerImagePixel: 0.25, levelCount: levels) == 3)
    }

    @Test("visible tiles at the edges with overlap, ordered from the centre out")
    func visibleTiles() {
        let layout = DeepZoomLayout(imageSize: PixelSize(width: 1000, height: 600), name: "a", tileSize: 254, overlap: 1)
        // Cores: columns [0,254) [254,508) [508,762) [762,1000); rows [0,254) [254,508) [508,600).
        let corner = layout.tiles(reduction: 0, covering: ImageRect(minX: 0, minY: 0, maxX: 254, maxY: 254))
        #expect(corner == [TileID(reduction: 0, column: 0, row: 0)])
        let straddling = layout.tiles(reduction: 0, covering: ImageRect(minX: 250, minY: 500, maxX: 260, maxY: 700))
        #expect(
            Set(straddling) == [
                TileID(reduction: 0, column: 0, row: 1), TileID(reduction: 0, column: 1, row: 1),
                TileID(reduction: 0, column: 0, row: 2), TileID(reduction: 0, column: 1, row: 2),
            ])
        let all = layout.tiles(reduction: 0, covering: ImageRect(minX: 400, minY: 200, maxX: 600, maxY: 400), ring: 5)
        #expect(all.count == 12)
        #expect(all.first == TileID(reduction: 0, column: 1, row: 1))  // the core nearest the centre
        let distances = all.map { abs($0.column - 1) + abs($0.row - 1) }
        #expect(distances.first == 0 && distances.last! >= 2)
        #expect(layout.tiles(reduction: 0, covering: ImageRect(minX: -500, minY: -500, maxX: -10, maxY: -10)).isEmpty)
        // Half size: one level down, the same view needs fewer tiles.
        #expect(layout.tiles(reduction: 1, covering: ImageRect(minX: 0, minY: 0, maxX: 1000, maxY: 600)).count == 4)  // 500×300: 2×2
    }

    @Test("pan and zoom keep the anchor under the pointer; fit shows the whole image")
    func viewportMath() {
        var view = Viewport(size: PointSize(width: 200, height: 100), zoom: 1, center: PixelPoint(x: 500, y: 500))
        let anchor = (x: 150.0, y: 25.0)
        let before = view.imagePoint(atPoint: anchor)
        view.zoom(to: 4, anchor: anchor)
        let after = view.imagePoint(atPoint: anchor)
        #expect(abs(before.x - after.x) < 1e-9 && abs(before.y - after.y) < 1e-9)
        view.pan(byPoints: 40, -20)
        #expect(view.center.x == after.x - (150 - 100) / 4 - 10 && abs(view.center.y - (after.y - (25 - 50) / 4.0 + 5)) < 1e-9)
        view.fit(PixelSize(width: 1000, height: 200))
        #expect(view.zoom == 0.2 && view.center == PixelPoint(x: 500, y: 100))
        view.zoom(to: 1e9)
        #expect(view.zoom == view.maximumZoom)
    }

    func pyramid() async throws -> (source: LocalPyramidSource, image: PixelBuffer, cleanup: URL) {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-view-\(UUID().uuidString)")
        let path = fixtures.appendingPathComponent("photo-400x300.png").path
        _ = try await PyramidBuilder.build(
            .file(path), name: "p", outputDirectory: output.path,
            options: PyramidOptions(layout: .deepZoom(tileSize: 64, overlap: 1), encoding: .png(), jobs: 2))
        return (try LocalPyramidSource(path: output.path), try ImageDecoder().decode(.file(path)).pixels, output)
    }

    func render(_ source: LocalPyramidSource, _ view: Viewport, drop: Set<TileID> = []) async throws -> TileRenderer.Result {
        let layout = source.layout
        let reduction = LevelSelector().reduction(screenPixelsPerImagePixel: view.screenPixelsPerImagePixel, levelCount: layout.levelCount)
        var tiles: [TileID: PixelBuffer] = [:]
        for level in reduction..<layout.levelCount {
            for id in layout.tiles(reduction: level, covering: view.visibleRect) where !drop.contains(id) {
                tiles[id] = try await source.tile(reduction: id.reduction, column: id.column, row: id.row)
            }
        }
        return TileRenderer().render(view, layout: layout, reduction: reduction) { tiles[$0] }
    }

    @Test(
        "renders match a direct resize of the same region, zoomed out, at 1:1 and magnified, without seams",
        arguments: [(0.5, 28.0), (0.75, 28.0), (1.0, 33.0), (2.5, 30.0)])
    func renderQuality(zoom: Double, minimum: Double) async throws {
        let (source, image, directory) = try await pyramid()
        defer { try? FileManager.default.removeItem(at: directory) }
        // A 100×80-point view centred so that it stays inside the image at every zoom.
        let view = Viewport(size: PointSize(width: 100, height: 80), zoom: zoom, center: PixelPoint(x: 200, y: 150))
        let rendered = try await render(source, view).pixels
        let rect = view.visibleRect
        let crop = image.cropped(x: Int(rect.minX), y: Int(rect.minY), width: Int(rect.maxX - rect.minX), height: Int(rect.maxY - rect.minY))!
        let expected = LanczosResampler.resize(crop, to: rendered.size)
        let value = psnr(rendered, expected)
        #expect(value >= minimum, "PSNR \(value) dB at zoom \(zoom)")
    }

    @Test(
        "every layout tessera tile writes opens from its directory and renders the same view",
        arguments: [PyramidLayout.iiif(tileSize: 128), .xyz(tileSize: 128), .thTiled(tileSize: 128)])
    func everyLayoutOpens(layout: PyramidLayout) async throws {
        let (reference, _, directory) = try await pyramid()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("other")
        _ = try await PyramidBuilder.build(
            .file(fixtures.appendingPathComponent("photo-400x300.png").path), name: "q",
            outputDirectory: output.path, options: PyramidOptions(layout: layout, encoding: .png(), jobs: 2))
        let source = try LocalPyramidSource(path: output.path)
        if case .xyz = layout {
            #expect(source.imageSize == PixelSize(width: 512, height: 384))  // padded to whole tiles
        } else {
            #expect(source.imageSize == PixelSize(width: 400, height: 300))
        }
        let view = Viewport(size: PointSize(width: 120, height: 90), zoom: 0.6, center: PixelPoint(x: 180, y: 140))
        let expected = try await render(reference, view).pixels
        let actual = try await render(source, view)
        #expect(actual.placeholderPixelCount == 0)
        #expect(psnr(actual.pixels, expected) > 40)
    }

    @Test("a missing tile is drawn from the coarser level in hand, never left blank")
    func placeholders() async throws {
        let (source, _, directory) = try await pyramid()
        defer { try? FileManager.default.removeItem(at: directory) }
        let view = Viewport(size: PointSize(width: 100, height: 80), zoom: 1, center: PixelPoint(x: 100, y: 100))
        let complete = try await render(source, view)
        #expect(complete.placeholderPixelCount == 0)
        let missing = TileID(reduction: 0, column: 1, row: 1)
        let partial = try await render(source, view, drop: [missing])
        #expect(partial.placeholderPixelCount > 0)
        #expect(psnr(partial.pixels, complete.pixels) > 20)  // blurrier there, but the same picture
    }

    /// Writes `contents` as `name` in a new directory and opens it as a pyramid.
    func openDescriptor(_ name: String, _ contents: Data) throws -> LocalPyramidSource {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-descriptor-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent(name).path
        try contents.write(to: URL(fileURLWithPath: path))
        return try LocalPyramidSource(path: path)
    }

    func isInvalidDescriptor(_ error: any Error) -> Bool {
        if case .invalidDescriptor = error as? TiledSourceError { true } else { false }
    }

    /// Found by the fuzz harness FuzzPyramidDescriptor (issue 16): an info.json claiming a height of
    /// 60 trillion pixels was accepted, and the viewer's first listing of tiles asked for 457 MB of
    /// tile spans. Both readers now refuse such geometry in one check.
    @Test("the fuzzer's info.json with a 60-trillion-pixel height is refused before any tile is listed")
    func tallInfoJSON() throws {
        let finding = try Data(contentsOf: fixtures.appendingPathComponent("fuzz/pyramid-descriptor-tall-info.json"))
        #expect { try openDescriptor("info.json", finding) } throws: { isInvalidDescriptor($0) }
    }

    /// The same check's other edges: a side past 2⁶² hung Deep Zoom's level count and overflowed
    /// the level sizes, a huge tile or overlap overflowed the spans, and a tiny tile over a long side
    /// made millions of spans.
    @Test(
        "descriptors whose geometry no pyramid has are refused",
        arguments: [
            ("info.json", #"{"width": 4000, "height": 3000, "tiles": [{"width": 9223372036854775807}]}"#),
            ("info.json", #"{"width": 16777217, "height": 1, "tiles": [{"width": 256}]}"#),
            ("p.dzi", #"<Image Format="jpeg" Overlap="1" TileSize="254"><Size Height="3000" Width="4611686018427387904"/></Image>"#),
            ("p.dzi", #"<Image Format="jpeg" Overlap="9223372036854775807" TileSize="254"><Size Height="30" Width="40"/></Image>"#),
            ("p.dzi", #"<Image Format="jpeg" Overlap="0" TileSize="1"><Size Height="65537" Width="1"/></Image>"#),
        ])
    func hostileDescriptors(name: String, contents: String) throws {
        #expect { try openDescriptor(name, Data(contents.utf8)) } throws: { isInvalidDescriptor($0) }
    }

    @Test("the largest accepted geometry opens and lists its spans: 2¹⁶ tiles on a side")
    func largestDescriptor() throws {
        let source = try openDescriptor("info.json", Data(#"{"width": 16777216, "height": 256, "tiles": [{"width": 256}]}"#.utf8))
        #expect(source.layout.columnSpans(reduction: 0).count == 65536)
        #expect(source.layout.levelCount == 17)
    }
}
