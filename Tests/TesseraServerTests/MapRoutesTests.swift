import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import TesseraCore
import Testing

@testable import TesseraServer

/// The map routes (`/maps/{identifier}/…`) over the committed GeoTIFFs of
/// scripts/make-map-fixtures.py: TileJSON and WMTS that point at the tiles, tiles in each format
/// and at 512 px, validators, and every way a request or a file can be wrong answered with a
/// status and one line that names no path. Pixel parity with GDAL is Tests/Browser/test_maps.py's.
@Suite struct MapRoutesTests {
    static let maps = ServerSandbox.fixtures + "/maps"

    static func sandbox() throws -> ServerSandbox {
        let sandbox = try ServerSandbox()
        for name in try FileManager.default.contentsOfDirectory(atPath: maps) {
            try FileManager.default.copyItem(atPath: maps + "/" + name, toPath: sandbox.root + "/" + name)
        }
        return sandbox
    }

    static func json(_ body: ByteBuffer) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any])
    }

    @Test func tileJSONAndWMTSPointAtTheTiles() async throws {
        let sandbox = try Self.sandbox()
        defer { sandbox.cleanUp() }
        try await sandbox.server().test { client in
            let tilejson = try await client.execute(uri: "/maps/geographic.tif/tilejson.json", method: .get)
            #expect(tilejson.status == .ok && tilejson.headers[.contentType] == "application/json")
            let document = try Self.json(tilejson.body)
            let template = try #require((document["tiles"] as? [String])?.first)
            #expect(template.hasPrefix("http://") && template.hasSuffix("/maps/geographic.tif/{z}/{x}/{y}.png"), "\(template)")
            #expect(document["bounds"] as? [Double] == [14.8, 47.708, 15.056, 47.9])
            #expect(document["minzoom"] as? Int == 10 && document["maxzoom"] as? Int == 11)
            // A GeoTIFF in strips, decoded rather than read in place, is a map as well.
            let strips = try Self.json(try await client.execute(uri: "/maps/strips.tif/tilejson.json", method: .get).body)
            let bounds = try #require(strips["bounds"] as? [Double])
            #expect(abs(bounds[0] - 15) < 1e-9 && strips["maxzoom"] as? Int == 14)
            let tile = try await client.execute(uri: "/maps/strips.tif/14/8875/5705.png", method: .get)
            #expect(tile.status == .ok)
            let wmts = try await client.execute(uri: "/maps/sub%20dir%2Fgray.tif/WMTSCapabilities.xml", method: .get)
            #expect(wmts.status == .notFound)
            let capabilities = try await client.execute(uri: "/maps/gray-point.tif/WMTSCapabilities.xml", method: .get)
            #expect(capabilities.status == .ok && capabilities.headers[.contentType] == "application/xml")
            let xml = String(buffer: capabilities.body)
            #expect(xml.contains(#"/maps/gray-point.tif/{TileMatrix}/{TileCol}/{TileRow}.png""#))
            #expect(xml.contains("<TileMatrixSet>WebMercatorQuad</TileMatrixSet>"))
        }
    }

    @Test func tilesComeInEachFormatAndAt512Pixels() async throws {
        let sandbox = try Self.sandbox()
        defer { sandbox.cleanUp() }
        try await sandbox.server().test { client in
            for (path, type, side) in [
                ("1108/712.png", "image/png", 256), ("1108/712.jpg", "image/jpeg", 256), ("1108/712.webp", "image/webp", 256),
                ("1108/712@2x.png", "image/png", 512),
            ] {
                let response = try await client.execute(uri: "/maps/geographic.tif/11/" + path, method: .get)
                #expect(response.status == .ok && response.headers[.contentType] == type, "\(path)")
                let pixels = try decodePixels(response.body)
                #expect(pixels.size == PixelSize(width: side, height: side), "\(path)")
            }
            // The same tile asked again: the same validator, and 304 when the client has it.
            let first = try await client.execute(uri: "/maps/geographic.tif/11/1108/712.png?resampling=bilinear", method: .get)
            let tag = try #require(first.headers[.eTag])
            let again = try await client.execute(
                uri: "/maps/geographic.tif/11/1108/712.png?resampling=bilinear", method: .get, headers: [.ifNoneMatch: tag])
            #expect(again.status == .notModified)
            let nearest = try await client.execute(uri: "/maps/geographic.tif/11/1108/712.png", method: .get)
            #expect(nearest.headers[.eTag] != tag)
        }
    }

    @Test func wrongRequestsAndFilesAreRefusedInOneLineWithoutAPath() async throws {
        let sandbox = try Self.sandbox()
        defer { sandbox.cleanUp() }
        try await sandbox.server().test { client in
            for (uri, statuses) in [
                ("/maps/geographic.tif/11/1100/712.png", [HTTPResponse.Status.notFound]),  // outside the map
                ("/maps/geographic.tif/2/4/0.png", [.notFound]),  // no such tile at z2
                ("/maps/geographic.tif/11/1108/712.gif", [.notFound]),
                ("/maps/geographic.tif/11/1108/712.png?resampling=cubicspline", [.badRequest]),
                ("/maps/photo-400x300.png/tilejson.json", [.notFound]),  // no georeference
                // Georeferenced in ways no map can be made of: no map (404), saying why.
                ("/maps/missing.tif/tilejson.json", [.notFound]),
                ("/maps/hostile-keys.tif/tilejson.json", [.notFound]),
                ("/maps/hostile-user-crs.tif/1/1/1.png", [.notFound]),
                ("/maps/hostile-unknown-epsg.tif/tilejson.json", [.notFound]),
                ("/maps/hostile-scale.tif/WMTSCapabilities.xml", [.notFound]),
            ] {
                let response = try await client.execute(uri: uri, method: .get)
                let body = String(buffer: response.body)
                #expect(statuses.contains(response.status), "\(uri): \(response.status) \(body)")
                #expect(!body.contains(sandbox.root) && !body.contains("/tmp") && body.split(separator: "\n").count <= 1, "\(uri): \(body)")
            }
            // The hostile files are still images: their IIIF routes answer.
            #expect(try await client.execute(uri: "/iiif/3/hostile-keys.tif/info.json", method: .get).status == .ok)
        }
    }
}
