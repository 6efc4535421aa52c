import Foundation
import HTTPTypes
import HummingbirdTesting
import TesseraCodecs
import TesseraCore
import TesseraTestSupport
import TesseraTiles
import TesseraViewing
import Testing

@testable import TesseraServer

@Suite("Tiled multi-resolution TIFF")
struct TIFFPyramidTests {
    let levels = ServerSandbox.levels(width: 1000, height: 700, count: 4)  // 1000×700 … 125×88

    func write(_ data: Data, in directory: String, as name: String) throws -> String {
        let path = directory + "/" + name
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func readsEveryTileOfEveryLevelAsStored() throws {
        let sandbox = try ServerSandbox()
        defer { sandbox.cleanUp() }
        let path = try write(TestTIFF.encode(levels, layout: .tiles(128)), in: sandbox.root, as: "pyramid.tif")
        let pyramid = try #require(try TIFFPyramid(path: path))
        #expect(pyramid.levelSizes == levels.map(\.size))
        #expect(pyramid.tileSize == PixelSize(width: 128, height: 128))
        #expect(pyramid.pixelFormat == .rgb8)
        for (index, level) in levels.enumerated() {
            for row in 0..<((level.height + 127) / 128) {
                for column in 0..<((level.width + 127) / 128) {
                    let tile = try pyramid.tile(level: index, column: column, row: row)
                    let expected = try #require(
                        level.cropped(
                            to: PixelRect(
                                x: column * 128, y: row * 128, width: min(128, level.width - column * 128), height: min(128, level.height - row * 128)
                            )))
                    #expect(tile == expected, "level \(index) tile \(column),\(row)")
                }
            }
        }
        #expect(throws: ImageDecodingError.self) { try pyramid.tile(level: 0, column: 8, row: 0) }
        #expect(throws: ImageDecodingError.self) { try pyramid.tile(level: 4, column: 0, row: 0) }
    }

    /// A pyramid's tiles are converted to sRGB from the file's profile, as any decode of it is.
    @Test func tilesOfAProfileTaggedPyramidAreConvertedLikeTheDecode() throws {
        let sandbox = try ServerSandbox()
        defer { sandbox.cleanUp() }
        let profile = try #require(try ImageDecoder().probe(.file(ServerSandbox.fixtures + "/colour/adobe-rgb.png")).iccProfile)
        let path = try write(
            TestTIFF.encode(levels, layout: .tiles(128), iccProfile: profile.data), in: sandbox.root, as: "tagged.tif")
        let pyramid = try #require(try TIFFPyramid(path: path))
        let decoded = try ImageDecoder().decode(.file(path))
        #expect(decoded.properties.iccProfile == profile)
        let tile = try pyramid.tile(level: 0, column: 1, row: 2)
        let rect = PixelRect(x: 128, y: 256, width: 128, height: 128)
        #expect(tile == decoded.pixels.cropped(to: rect))
        #expect(tile != levels[0].cropped(to: rect), "the tile was not converted")
    }

    /// Levels a whole factor apart (thirds, quarters, mixed) are a pyramid too; their downsamples
    /// are the steps' product, not the sizes' ratio (a long strip's last level is 5 px high).
    @Test func levelsByAnyWholeFactorArePyramidLevels() throws {
        let sandbox = try ServerSandbox()
        defer { sandbox.cleanUp() }
        let sizes = [(10000, 300), (3334, 100), (834, 25), (417, 13), (105, 4)]  // ÷3 up, ÷4 up, ÷2 up, ÷4 down
        let path = try write(
            TestTIFF.encode(sizes.map { ServerSandbox.pattern(width: $0.0, height: $0.1) }, layout: .tiles(128)), in: sandbox.root,
            as: "steps.tif")
        let pyramid = try #require(try TIFFPyramid(path: path))
        #expect(pyramid.levelSizes == sizes.map { PixelSize(width: $0.0, height: $0.1) })
        #expect(pyramid.levelDownsamples == [1, 3, 12, 24, 96])
        // A level whose sides shrink by different factors is not one.
        var skewed = sizes.prefix(2).map { ServerSandbox.pattern(width: $0.0, height: $0.1) }
        skewed.append(ServerSandbox.pattern(width: 1667, height: 25))
        let stopped = try write(TestTIFF.encode(skewed, layout: .tiles(128)), in: sandbox.root, as: "skewed.tif")
        #expect(try TIFFPyramid(path: stopped)?.levelDownsamples == [1, 3])
    }

    @Test func whatIsNotAPyramidIsRecognised() throws {
        let sandbox = try ServerSandbox()
        defer { sandbox.cleanUp() }
        // One level only; a turned first image; strips (a fixture).
        let single = try write(TestTIFF.encode([levels[0]], layout: .tiles(128)), in: sandbox.root, as: "single.tif")
        #expect(try TIFFPyramid(path: single) == nil)
        let turned = try write(TestTIFF.encode(levels, layout: .tiles(128), orientation: .right), in: sandbox.root, as: "turned.tif")
        #expect(try TIFFPyramid(path: turned) == nil)
        #expect(try TIFFPyramid(path: ServerSandbox.fixtures + "/tiff-rgb-strips.tif") == nil)
        // A level that is not half the one before ends the pyramid there.
        var skewed = levels
        skewed[2] = ServerSandbox.pattern(width: 200, height: 175)
        let stopped = try write(TestTIFF.encode(skewed, layout: .tiles(128)), in: sandbox.root, as: "stopped.tif")
        #expect(try TIFFPyramid(path: stopped)?.levelSizes == Array(levels.map(\.size).prefix(2)))
        #expect(throws: ImageDecodingError.self) { try TIFFPyramid(path: ServerSandbox.fixtures + "/broken-random.jpg") }
    }

    @Test func theServerReadsThePyramidTileByTileWithNoDerivative() async throws {
        let sandbox = try ServerSandbox()
        defer { sandbox.cleanUp() }
        _ = try write(TestTIFF.encode(levels, layout: .tiles(128)), in: sandbox.root, as: "pyramid.tif")
        let server = try sandbox.server { $0.smallSourcePixelLimit = 10_000 }
        try await server.test { client in
            try await client.execute(uri: "/iiif/3/pyramid.tif/info.json", method: .get) { response in
                #expect(response.status == .ok)
                let info = try JSONDecoder().decode(IIIFInfoDocument.self, from: Data(response.body.readableBytesView))
                #expect((info.width, info.height) == (1000, 700))
                #expect(info.tiles?.map(\.width) == [128])
                #expect(info.tiles?.first?.scaleFactors == [1, 2, 4, 8])
                #expect(info.sizes?.map(\.width) == [125, 250, 500, 1000])
            }
            // An aligned tile (the second of its row) at each scale is that level's stored tile, exactly (PNG).
            for (reduction, level) in levels.enumerated() where level.width > 128 {
                let step = 128 << reduction
                let x = step, y = 0
                let width = min(step, 1000 - x), height = min(step, 700 - y)
                let uri = "/iiif/3/pyramid.tif/\(x),\(y),\(width),\(height)/\((width + (1 << reduction) - 1) >> reduction),/0/default.png"
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status == .ok, "\(uri)")
                let expected = try #require(
                    level.cropped(to: PixelRect(x: 128, y: 0, width: min(128, level.width - 128), height: min(128, level.height))))
                #expect(try decodePixels(response.body) == expected, "\(uri)")
            }
            // A region across tiles, at the level that serves it: seams and offsets show.
            let response = try await client.execute(uri: "/iiif/3/pyramid.tif/100,60,400,300/200,/0/default.png", method: .get)
            let expected = try #require(levels[1].cropped(to: PixelRect(x: 50, y: 30, width: 200, height: 150)))
            #expect(try decodePixels(response.body) == expected)
        }
        // Served from the file: nothing was built.
        let built = (try? FileManager.default.contentsOfDirectory(atPath: sandbox.cache)) ?? []
        #expect(built.filter { !$0.hasPrefix(".") }.isEmpty)
    }

    /// A pyramidal TIFF is read tile by tile, so its area is no limit: one of 280 MP (over the
    /// default source pixel limit, as `vips tiffsave --tile --pyramid` writes a 20000×14000 map) is
    /// described, listed and served with default settings, from its own tiles, with nothing built.
    @Test func aPyramidOverTheSourcePixelLimitIsServedFromItsTiles() async throws {
        let sandbox = try ServerSandbox()
        defer { sandbox.cleanUp() }
        let sizes = (0..<7).map { n in PixelSize(width: (20000 + (1 << n) - 1) >> n, height: (14000 + (1 << n) - 1) >> n) }
        #expect(sizes[0].area > ServerConfiguration(root: sandbox.root, cacheDirectory: sandbox.cache).sourcePixelLimit)
        let tiles = sizes.indices.map { ServerSandbox.pattern(width: 256 * ($0 + 1), height: 256) }
        _ = try write(TestTIFF.encodeRepeatingTiles(levelSizes: sizes, tiles: tiles, side: 256), in: sandbox.root, as: "map.tif")
        let server = try sandbox.server()
        try await server.test { client in
            let response = try await client.execute(uri: "/iiif/3/map.tif/info.json", method: .get)
            #expect(response.status == .ok, "\(String(buffer: response.body))")
            let info = try JSONDecoder().decode(IIIFInfoDocument.self, from: Data(response.body.readableBytesView))
            #expect((info.width, info.height) == (20000, 14000))
            #expect(info.tiles?.first?.scaleFactors == [1, 2, 4, 8, 16, 32, 64])
            // The second tile of the first row at each of three levels: its level's stored tile.
            for reduction in [0, 2, 5] {
                let step = 256 << reduction
                let (width, height) = (min(step, 20000 - step), min(step, 14000))
                let scaled = PixelSize(width: (width + (1 << reduction) - 1) >> reduction, height: (height + (1 << reduction) - 1) >> reduction)
                let uri = "/iiif/3/map.tif/\(step),0,\(width),\(height)/\(scaled.width),\(scaled.height)/0/default.png"
                let tile = try await client.execute(uri: uri, method: .get)
                #expect(tile.status == .ok, "\(uri): \(String(buffer: tile.body))")
                let expected = try #require(tiles[reduction].cropped(to: PixelRect(x: 0, y: 0, width: scaled.width, height: scaled.height)))
                #expect(try decodePixels(tile.body) == expected, "\(uri)")
            }
            let manifest = try await client.execute(uri: "/presentation/3/map.tif/manifest", method: .get)
            #expect(manifest.status == .ok)
        }
        let built = (try? FileManager.default.contentsOfDirectory(atPath: sandbox.cache)) ?? []
        #expect(built.filter { !$0.hasPrefix(".") }.isEmpty)
    }

    @Test func aTIFFPyramidThatStopsEarlyGetsABuiltPyramid() async throws {
        let sandbox = try ServerSandbox()
        defer { sandbox.cleanUp() }
        // Two levels of 1000×700 in 128-px tiles: the coarsest is far bigger than 2×2 tiles.
        _ = try write(TestTIFF.encode(Array(levels.prefix(2)), layout: .tiles(128)), in: sandbox.root, as: "shallow.tif")
        let server = try sandbox.server {
            $0.smallSourcePixelLimit = 10_000; $0.levelPixelLimit = 0
        }
        try await server.test { client in
            let response = try await client.execute(uri: "/iiif/3/shallow.tif/info.json", method: .get)
            let info = try JSONDecoder().decode(IIIFInfoDocument.self, from: Data(response.body.readableBytesView))
            #expect(info.tiles?.map(\.width) == [256])
            let tile = try await client.execute(uri: "/iiif/3/shallow.tif/0,0,256,256/256,/0/default.png", method: .get)
            #expect(tile.status == .ok)
            let expected = try #require(levels[0].cropped(to: PixelRect(x: 0, y: 0, width: 256, height: 256)))
            let served = try decodePixels(tile.body)
            #expect(served.size == expected.size)
            // Through the built pyramid's JPEG tiles: close, not exact.
            let meanDifference = zip(served.bytes, expected.bytes).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) } / expected.bytes.count
            #expect(meanDifference <= 4)
            await server.service.builds.finished()
        }
        let built = (try? FileManager.default.contentsOfDirectory(atPath: sandbox.cache)) ?? []
        #expect(built.contains { !$0.hasPrefix(".") })
    }
}

@Suite("Sources turned by an orientation tag")
struct OrientationServingTests {
    @Test(arguments: [Orientation.upMirrored, .down, .downMirrored, .leftMirrored, .right, .rightMirrored, .left])
    func everyRouteServesTheUprightImage(orientation: Orientation) async throws {
        let sandbox = try ServerSandbox()
        defer { sandbox.cleanUp() }
        // Stored sideways or flipped (a tiled TIFF of one level, with the orientation tag).
        let stored = ServerSandbox.pattern(width: 700, height: 500)
        try TestTIFF.encode([stored], layout: .tiles(128), orientation: orientation)
            .write(to: URL(fileURLWithPath: sandbox.root + "/turned.tif"))
        let upright = orientation.apply(to: stored)
        for path in ["small", "pyramid"] {
            let server = try sandbox.server { if path == "pyramid" { $0.smallSourcePixelLimit = 0 } }
            try await server.test { client in
                let info = try await client.execute(uri: "/iiif/3/turned.tif/info.json", method: .get)
                let document = try JSONDecoder().decode(IIIFInfoDocument.self, from: Data(info.body.readableBytesView))
                #expect((document.width, document.height) == (upright.width, upright.height), "\(path)")
                // A region across tiles, at full resolution and at half.
                let region = PixelRect(x: 90, y: 70, width: 260, height: 200)
                let reference = try #require(upright.cropped(to: region))
                let full = try decodePixels(try await client.execute(uri: "/iiif/3/turned.tif/90,70,260,200/max/0/default.png", method: .get).body)
                #expect(full.size == reference.size)
                if path == "small" {
                    #expect(full == reference, "decoded and turned exactly")
                } else {
                    #expect(meanDifference(full, reference) < 4, "\(path): through JPEG tiles")
                }
                let half = try decodePixels(try await client.execute(uri: "/iiif/3/turned.tif/90,70,260,200/130,/0/default.png", method: .get).body)
                #expect(half.size == PixelSize(width: 130, height: 100))
                // Deep Zoom: upright too (the second tile of the full-resolution level, overlap included).
                let descriptor = try await client.execute(uri: "/dzi/turned.tif.dzi", method: .get)
                let text = String(decoding: descriptor.body.readableBytesView, as: UTF8.self)
                #expect(text.contains("Width=\"\(upright.width)\"") && text.contains("Height=\"\(upright.height)\""), "\(text)")
                let layout = DeepZoomLayout(imageSize: upright.size, name: "x")
                let (columns, rows) = (layout.columnSpans(reduction: 0)[1], layout.rowSpans(reduction: 0)[0])
                let tile = try decodePixels(try await client.execute(uri: "/dzi/turned.tif_files/\(layout.maxLevel)/1_0.jpeg", method: .get).body)
                #expect(tile.size == PixelSize(width: columns.count, height: rows.count))
                let tileReference = try #require(
                    upright.cropped(to: PixelRect(x: columns.lowerBound, y: 0, width: columns.count, height: rows.count)))
                // Nearer the right pixels than the same tile one pixel off in any direction.
                let served = tile.converted(to: .rgb8)
                let error = meanDifference(served, tileReference)
                for (dx, dy) in [(-1, 0), (1, 0), (0, 1)] {
                    // (Shifts that would leave the image are skipped.)
                    guard
                        let shifted = upright.cropped(
                            to: PixelRect(
                                x: columns.lowerBound + dx, y: dy, width: columns.count, height: rows.count))
                    else { continue }
                    #expect(error < meanDifference(served, shifted), "\(path) Deep Zoom, off by (\(dx), \(dy))")
                }
            }
        }
    }
}
