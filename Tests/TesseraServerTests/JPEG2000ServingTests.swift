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

/// JPEG 2000 served in place: the codestream's tiles and resolution levels are the IIIF tiles and
/// scale factors, every region is decoded from the file, and nothing is built beside it.
@Suite("JPEG 2000 served in place")
struct JPEG2000ServingTests {
    /// 256×192, 64-px tiles, 5 resolution levels (scripts/make-jp2-fixtures.py).
    static let file = "lossy-tiled.jp2"

    func sandbox() throws -> ServerSandbox {
        let sandbox = try ServerSandbox()
        for name in [Self.file, "hostile-tile-count.j2k", "hostile-box-length.jp2"] {
            try FileManager.default.copyItem(atPath: ServerSandbox.fixtures + "/jpeg2000/" + name, toPath: sandbox.root + "/" + name)
        }
        return sandbox
    }

    /// Level `reduction` of the fixture, as the codec decodes it (checked against OpenJPEG's own
    /// tool in JPEG2000Tests).
    func level(_ reduction: Int, root: String) throws -> PixelBuffer {
        let reader = try ImageRowReader(.file(root + "/" + Self.file), reduction: reduction)
        var rows: [UInt8] = []
        try reader.forEachRow { rows.append(contentsOf: $0) }
        return PixelBuffer(width: reader.rowSize.width, height: reader.rowSize.height, format: reader.format, bytes: rows)
    }

    /// The same pixels whether levels are held whole (each decoded once, whatever asks for it) or
    /// read tile by tile and area by area (`levelPixelLimit` 0: none is held whole).
    @Test(arguments: [true, false])
    func servesTheCodestreamsTilesAndLevelsWithNoDerivative(wholeLevels: Bool) async throws {
        let sandbox = try sandbox()
        defer { sandbox.cleanUp() }
        let levels = try (0..<5).map { try level($0, root: sandbox.root) }
        let server = try sandbox.server {
            $0.smallSourcePixelLimit = 1000
            if !wholeLevels { $0.levelPixelLimit = 0 }
        }
        try await server.test { client in
            try await client.execute(uri: "/iiif/3/\(Self.file)/info.json", method: .get) { response in
                #expect(response.status == .ok)
                let info = try JSONDecoder().decode(IIIFInfoDocument.self, from: Data(response.body.readableBytesView))
                #expect((info.width, info.height) == (256, 192))
                #expect(info.tiles?.map(\.width) == [64])
                #expect(info.tiles?.first?.scaleFactors == [1, 2, 4, 8, 16])
            }
            // An aligned tile at every scale factor is that level's tile, exactly (PNG).
            for (reduction, level) in levels.enumerated() {
                let step = 64 << reduction
                let column = level.width > 64 ? 1 : 0
                let x = column * step, width = min(step, 256 - x), height = min(step, 192)
                let uri = "/iiif/3/\(Self.file)/\(x),0,\(width),\(height)/\((width + (1 << reduction) - 1) >> reduction),/0/default.png"
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status == .ok, "\(uri)")
                let expected = try #require(
                    level.cropped(to: PixelRect(x: column * 64, y: 0, width: min(64, level.width - column * 64), height: min(64, level.height))))
                #expect(try decodePixels(response.body) == expected, "\(uri)")
            }
            // A region across tiles, at full resolution and at the half level: seams and offsets show.
            let full = try await client.execute(uri: "/iiif/3/\(Self.file)/37,21,150,100/max/0/default.png", method: .get)
            #expect(try decodePixels(full.body) == levels[0].cropped(to: PixelRect(x: 37, y: 21, width: 150, height: 100)))
            let half = try await client.execute(uri: "/iiif/3/\(Self.file)/40,20,160,120/80,/0/default.png", method: .get)
            #expect(try decodePixels(half.body) == levels[1].cropped(to: PixelRect(x: 20, y: 10, width: 80, height: 60)))
            // A tile of a level held whole since is cut from it: the same pixels.
            let again = try await client.execute(uri: "/iiif/3/\(Self.file)/128,0,128,128/64,/0/default.png", method: .get)
            #expect(try decodePixels(again.body) == levels[1].cropped(to: PixelRect(x: 64, y: 0, width: 64, height: 64)))
            // The whole image at a small size comes from a coarse level, not a full decode.
            let small = try await client.execute(uri: "/iiif/3/\(Self.file)/full/32,/0/default.png", method: .get)
            #expect(try decodePixels(small.body) == levels[3])
            // Deep Zoom tiles come from the same levels (JPEG, so close rather than exact).
            let layout = DeepZoomLayout(imageSize: PixelSize(width: 256, height: 192), name: "x")
            for reduction in [0, 1] {
                let (columns, rows) = (layout.columnSpans(reduction: reduction)[0], layout.rowSpans(reduction: reduction)[0])
                let tile = try await client.execute(uri: "/dzi/\(Self.file)_files/\(layout.maxLevel - reduction)/0_0.jpeg", method: .get)
                #expect(tile.status == .ok)
                let expected = try #require(levels[reduction].cropped(to: PixelRect(x: 0, y: 0, width: columns.count, height: rows.count)))
                let served = try decodePixels(tile.body).converted(to: .rgb8)
                #expect(served.size == expected.size)
                // Nearer the right pixels than the same tile one pixel off.
                for (dx, dy) in [(1, 0), (0, 1)] {
                    let shifted = try #require(
                        levels[reduction].cropped(to: PixelRect(x: dx, y: dy, width: columns.count - 1, height: rows.count - 1)))
                    let cut = try #require(served.cropped(to: PixelRect(x: 0, y: 0, width: columns.count - 1, height: rows.count - 1)))
                    let right = try #require(expected.cropped(to: PixelRect(x: 0, y: 0, width: columns.count - 1, height: rows.count - 1)))
                    #expect(meanDifference(cut, right) < meanDifference(cut, shifted), "level \(reduction), off by (\(dx), \(dy))")
                }
            }
            // Held whole, the two levels the regions fell on were each decoded once (tiles are
            // decoded by themselves, and then Deep Zoom's tiles of those levels were cut from them);
            // read by areas, none was decoded whole.
            let metrics = try await client.execute(uri: "/metrics", method: .get) { String(buffer: $0.body) }
            #expect(metrics.contains("tessera_source_level_decodes_total \(wholeLevels ? 2 : 0)"))
        }
        // Served from the file: nothing was built.
        let built = (try? FileManager.default.contentsOfDirectory(atPath: sandbox.cache)) ?? []
        #expect(built.filter { !$0.hasPrefix(".") }.isEmpty)
    }

    /// A tile whose size IIIF rounds up is its level's pixels: `0,0,250,187/63,` of a 250×187 image
    /// is level 2's one tile (62.5 and 46.75 round up to that level's 63×47), although its density
    /// (47 / 187 > 1/4) alone would pick level 1 and resample it, decoding 4× the pixels.
    @Test func aTileWhoseSizeRoundsUpIsItsLevel() async throws {
        let sandbox = try ServerSandbox()
        defer { sandbox.cleanUp() }
        let size = PixelSize(width: 250, height: 187)
        let bytes = (0..<size.area * 3).map { UInt8(truncatingIfNeeded: ($0 / 3 % size.width) * 7 + ($0 / 3 / size.width) * 3 + $0 % 3 * 50) }
        let path = sandbox.root + "/odd.jp2"
        try JP2Writer.write(
            PixelBuffer(width: size.width, height: size.height, format: .rgb8, bytes: bytes), to: path,
            settings: JP2Writer.Settings(tileSize: 64, resolutionLevels: 4, isLossless: true))
        let reader = try ImageRowReader(.file(path), reduction: 2)
        var rows: [UInt8] = []
        try reader.forEachRow { rows.append(contentsOf: $0) }
        let level = PixelBuffer(width: reader.rowSize.width, height: reader.rowSize.height, format: reader.format, bytes: rows)
        #expect(level.size == PixelSize(width: 63, height: 47))
        let server = try sandbox.server { $0.smallSourcePixelLimit = 1000 }
        try await server.test { client in
            let response = try await client.execute(uri: "/iiif/3/odd.jp2/0,0,250,187/63,/0/default.png", method: .get)
            #expect(response.status == .ok)
            #expect(try decodePixels(response.body) == level)
        }
    }

    /// A hostile header is refused with a short error that names no path.
    @Test(arguments: ["hostile-tile-count.j2k", "hostile-box-length.jp2"])
    func refusesHostileFilesWithoutLeakingPaths(_ name: String) async throws {
        let sandbox = try sandbox()
        defer { sandbox.cleanUp() }
        let server = try sandbox.server()
        try await server.test { client in
            for uri in ["/iiif/3/\(name)/info.json", "/iiif/3/\(name)/full/max/0/default.jpg"] {
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status.code >= 400 && response.status.code < 600, "\(uri)")
                let body = String(decoding: response.body.readableBytesView, as: UTF8.self)
                #expect(!body.contains(sandbox.root) && !body.contains("/tmp"), "\(body)")
            }
        }
    }
}
