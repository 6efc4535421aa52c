import Foundation
import HummingbirdTesting
import RegionTestSupport
import TesseraCodecs
import TesseraCore
import TesseraTestSupport
import TesseraTiles
import TesseraViewing
import Testing

@testable import TesseraServer

/// A kind of source the server has never heard of, registered in one line of its configuration: a
/// procedural image whose native levels step by 3 (2700×1890, 900×630, 300×210, in 128-px tiles),
/// as an OME-TIFF written so presents itself. info.json, every scale factor's tiles, any region and
/// Deep Zoom are then served from those levels, planned once, with nothing built.
@Suite("A source kind the host registers")
struct RegisteredSourceKindTests {
    static let size = PixelSize(width: 2700, height: 1890)
    let source = SteppedSource(size: Self.size, step: 3, levelCount: 3, tileSide: 128)

    /// Levels 0 to 4 as the tests expect them: level 0 stored, level 1 it halved 2×2, and the
    /// coarser ones resampled from the finest native level at most that small (3× for levels 2 and
    /// 3, 9× for level 4); each level's blue channel says which native level it came from.
    func expectedLevels() -> [(pixels: PixelBuffer, native: Int)] {
        let level0 = source.levelPixels(0)
        return [(level0, 0), (RegionLevels.halved(level0), 0)]
            + [(2, 1), (3, 1), (4, 2)].map { reduction, native in
                let size = RegionLevels.levelSize(of: Self.size, reduction: reduction)
                return (LanczosResampler.resize(BoxShrinker.reduce(source.levelPixels(native), toward: size), to: size), native)
            }
    }

    @Test("info.json, every scale factor, a region and Deep Zoom from the registered kind's levels", arguments: [true, false])
    func servesEveryLevelFromTheNativeOnes(holdsLevels: Bool) async throws {
        let sandbox = try ServerSandbox()
        defer { sandbox.cleanUp() }
        let text = SteppedSourceKind.fileText(size: Self.size, step: 3, levelCount: 3, tileSide: 128)
        try text.write(toFile: sandbox.root + "/slide.stepped", atomically: true, encoding: .utf8)
        let kind = SteppedSourceKind()
        // Held: levels 1 to 4 made whole once and cut; not held: every region read on its own.
        let server = try sandbox.server {
            $0.regionSourceKinds = [kind]
            if !holdsLevels { $0.levelPixelLimit = 0 }
        }
        let expected = expectedLevels()
        try await server.test { client in
            let response = try await client.execute(uri: "/iiif/3/slide.stepped/info.json", method: .get)
            #expect(response.status == .ok, "\(String(buffer: response.body))")
            let info = try JSONDecoder().decode(IIIFInfoDocument.self, from: Data(response.body.readableBytesView))
            #expect((info.width, info.height) == (2700, 1890))
            #expect(info.tiles?.map(\.width) == [128])
            #expect(info.tiles?.first?.scaleFactors == [1, 2, 4, 8, 16])
            #expect(info.sizes?.map(\.width) == [169, 338, 675, 1350])
            // The second tile of the first row at every scale factor.
            for reduction in 0...4 {
                let step = 128 << reduction, (width, height) = (min(step, 2700 - step), min(step, 1890))
                let scaled = PixelSize(width: (width + (1 << reduction) - 1) >> reduction, height: (height + (1 << reduction) - 1) >> reduction)
                let uri = "/iiif/3/slide.stepped/\(step),0,\(width),\(height)/\(scaled.width),\(scaled.height)/0/default.png"
                let tile = try await client.execute(uri: uri, method: .get)
                #expect(tile.status == .ok, "\(uri): \(String(buffer: tile.body))")
                let (level, native) = expected[reduction]
                let cut = try #require(level.cropped(to: PixelRect(x: 128, y: 0, width: scaled.width, height: scaled.height)))
                #expect(try decodePixels(tile.body) == cut, "\(uri)")
                let blue = stride(from: 2, to: cut.bytes.count, by: 3).reduce(0) { $0 + Int(cut.bytes[$1]) } / (cut.bytes.count / 3)
                #expect(abs(blue - (60 * native + 31)) <= 6, "\(uri): the reference is of native level \(native)")
            }
            // A region across tiles at half size: level 0 halved, seams and offsets showing.
            let region = try await client.execute(uri: "/iiif/3/slide.stepped/100,60,900,700/450,/0/default.png", method: .get)
            let halved = expected[1].pixels
            #expect(try decodePixels(region.body) == halved.cropped(to: PixelRect(x: 50, y: 30, width: 450, height: 350)))
            // Deep Zoom: the descriptor, in the source's stored tiles with no overlap (a source read
            // in place with square stored tiles), and a tile of the level at half size, as JPEG.
            let descriptor = try await client.execute(uri: "/dzi/slide.stepped.dzi", method: .get)
            #expect(String(buffer: descriptor.body).contains("Width=\"2700\""))
            #expect(String(buffer: descriptor.body).contains("Overlap=\"0\" TileSize=\"128\""))
            let layout = DeepZoomLayout(imageSize: Self.size, name: "dzi", tileSize: 128, overlap: 0)
            let columns = layout.columnSpans(reduction: 1), rows = layout.rowSpans(reduction: 1)
            let deepZoom = try await client.execute(uri: "/dzi/slide.stepped_files/\(layout.maxLevel - 1)/1_1.jpeg", method: .get)
            #expect(deepZoom.status == .ok)
            let cut = PixelRect(x: columns[1].lowerBound, y: rows[1].lowerBound, width: columns[1].count, height: rows[1].count)
            // Encoded as the builder encodes its tiles: the same bytes.
            let reference = try #require(halved.cropped(to: cut))
            let quality = ServerConfiguration(root: sandbox.root, cacheDirectory: sandbox.cache).jpegQuality
            #expect(
                Data(deepZoom.body.readableBytesView) == (try ImageEncoder.encode(reference, as: PyramidRecipe.tileEncoding(jpegQuality: quality))))
        }
        // Planned once (the kind opened the file once for every request), and nothing was built.
        #expect(kind.openCount == 1)
        let built = (try? FileManager.default.contentsOfDirectory(atPath: sandbox.cache)) ?? []
        #expect(built.filter { !$0.hasPrefix(".") }.isEmpty)
    }

    /// A file the kind claims but cannot read is refused with a short error, not a crash, and the
    /// server goes on serving the rest.
    @Test func aBrokenFileOfTheKindIsAnError() async throws {
        let sandbox = try ServerSandbox()
        defer { sandbox.cleanUp() }
        try "tessera-stepped 2700 x".write(toFile: sandbox.root + "/broken.stepped", atomically: true, encoding: .utf8)
        let server = try sandbox.server { $0.regionSourceKinds = [SteppedSourceKind()] }
        try await server.test { client in
            let broken = try await client.execute(uri: "/iiif/3/broken.stepped/info.json", method: .get)
            #expect(broken.status.code >= 400 && broken.status.code < 600)
            #expect(!String(buffer: broken.body).contains(sandbox.root))
            let other = try await client.execute(uri: "/iiif/3/photo-400x300.png/info.json", method: .get)
            #expect(other.status == .ok)
        }
    }
}
