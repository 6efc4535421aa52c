import Foundation
import TesseraCodecs
import TesseraCore
import Testing

@testable import TesseraTiles

/// Web-map tiles of georeferenced sources, checked against Web Mercator's own formulas (no PROJ)
/// on a longitude/latitude raster, where each tile pixel's source pixel is known in closed form.
@Suite struct MapSourceTests {
    static let maps = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/maps")

    static func map(_ name: String) throws -> MapSource {
        let path = maps.appendingPathComponent(name).path
        let levels = try RegionSourceKinds.levels(ofFileAt: path, kinds: RegionSourceKinds.standard(readers: TIFFReaderPool(readersPerFile: 1)))
        return try MapSource(levels: levels, georeference: try #require(try levels.source.georeference()))
    }

    @Test func theGridIsWebMercators() throws {
        let tile = try #require(WebMercatorTile(zoom: 1, x: 1, y: 0))
        #expect(tile.west == 0 && tile.north == WebMercatorTile.worldWidth / 2)
        #expect(WebMercatorTile(zoom: 2, x: 4, y: 0) == nil && WebMercatorTile(zoom: -1, x: 0, y: 0) == nil)
        #expect(WebMercatorTile(zoom: 31, x: 0, y: 0) == nil)
        // 10 m pixels: z14's are 9.55 m, z13's 19.1 m.
        #expect(WebMercatorTile.zoom(finerThan: 10) == 14 && WebMercatorTile.zoom(finerThan: 19.109_257_071_294_063) == 13)
        #expect(abs(WebMercatorTile.latitude(y: GeoBounds.mercatorY(latitude: 47.7)) - 47.7) < 1e-12)
    }

    @Test func boundsAndZoomsComeFromTheRasterAndItsLevels() throws {
        let map = try Self.map("geographic.tif")
        #expect(map.bounds == GeoBounds(west: 14.8, south: 47.708, east: 15.056, north: 47.9))
        // 0.001° is 111 m of Web Mercator: z11's 76 m pixels are the first finer; the 2× level's z10.
        #expect(map.zooms == 10...11)
        #expect(map.covers(try #require(WebMercatorTile(zoom: 11, x: 1108, y: 712))))
        #expect(!map.covers(try #require(WebMercatorTile(zoom: 11, x: 1100, y: 712))))
        // A UTM raster's bounds come through PROJ: its west edge is the zone's central meridian.
        let utm = try Self.map("gray-point.tif")
        #expect(abs(utm.bounds.west - 15) < 1e-9 && utm.bounds.north < 47.86 && utm.bounds.north > 47.85)
    }

    @Test(arguments: [MapResampling.nearest, .bilinear])
    func eachTilePixelIsTheSourcePixelUnderItsCentre(_ resampling: MapResampling) throws {
        let map = try Self.map("geographic.tif")
        let source = try map.levels.pixels(of: PixelRect(x: 0, y: 0, width: 256, height: 192), reduction: 0)
        var (compared, equal, close) = (0, 0, 0)
        for (x, y) in [(1108, 712), (1109, 712), (1108, 713), (1109, 713)] {
            let tile = try #require(WebMercatorTile(zoom: 11, x: x, y: y))
            let pixels = try map.pixels(of: tile, side: 256, resampling: resampling)
            #expect(pixels.format == .rgba8 && pixels.size == PixelSize(width: 256, height: 256))
            let metres = WebMercatorTile.side(zoom: 11) / 256
            for row in 0..<256 {
                for column in 0..<256 {
                    let longitude = WebMercatorTile.longitude(x: tile.west + (Double(column) + 0.5) * metres)
                    let latitude = WebMercatorTile.latitude(y: tile.north - (Double(row) + 0.5) * metres)
                    let (sx, sy) = ((longitude - 14.8) / 0.001, (47.9 - latitude) / 0.001)
                    let alpha = Array(pixels.pixel(x: column, y: row))[3]
                    guard sx > 0.01, sy > 0.01, sx < 255.99, sy < 191.99 else {
                        // Outside the raster (by more than the interpolation's error): transparent.
                        if sx < -0.01 || sy < -0.01 || sx > 256.01 || sy > 192.01 { #expect(alpha == 0) }
                        continue
                    }
                    compared += 1
                    let got = Array(pixels.pixel(x: column, y: row).prefix(3)).map(Double.init)
                    let expected =
                        resampling == .nearest ? Array(source.pixel(x: Int(sx), y: Int(sy))).map(Double.init) : Self.bilinear(source, sx, sy)
                    if zip(got, expected).allSatisfy({ abs($0 - $1) < 0.5 }) { equal += 1 }
                    if zip(got, expected).allSatisfy({ abs($0 - $1) <= 8 }) { close += 1 }
                    #expect(alpha == 255)
                }
            }
        }
        #expect(compared > 20000)
        // Exact but where the 16-px grid's interpolation (a few hundredths of a pixel) puts a centre
        // across a pixel edge, or moves a blend across the checker's edges by a few levels.
        #expect(Double(equal) / Double(compared) > (resampling == .nearest ? 0.999 : 0.9))
        #expect(Double(close) / Double(compared) > 0.999)
    }

    /// `image`'s RGB at (`x`, `y`) (pixel corners at integers) blended from the four pixels
    /// around it, edges clamped.
    static func bilinear(_ image: PixelBuffer, _ x: Double, _ y: Double) -> [Double] {
        let (fx, fy) = (x - 0.5, y - 0.5), (left, top) = (Int(fx.rounded(.down)), Int(fy.rounded(.down)))
        let (wx, wy) = (fx - Double(left), fy - Double(top))
        func at(_ column: Int, _ row: Int) -> [Double] {
            Array(image.pixel(x: min(max(column, 0), image.width - 1), y: min(max(row, 0), image.height - 1))).map(Double.init)
        }
        let (a, b, c, d) = (at(left, top), at(left + 1, top), at(left, top + 1), at(left + 1, top + 1))
        return (0..<3).map { ((a[$0] * (1 - wx) + b[$0] * wx) * (1 - wy) + (c[$0] * (1 - wx) + d[$0] * wx) * wy) }
    }

    @Test func adjacentTilesAgreeWithOneTwiceAsLarge() throws {
        // Tile (x, y) at 512 px is its four children at 256 px, interpolated on the same line.
        let map = try Self.map("gray-point.tif")
        let parent = try #require(WebMercatorTile(zoom: 15, x: 17749, y: 11480))
        let large = try map.pixels(of: parent, side: 512, resampling: .nearest)
        var differing = 0
        for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            let child = try #require(WebMercatorTile(zoom: 16, x: 2 * parent.x + dx, y: 2 * parent.y + dy))
            let small = try map.pixels(of: child, side: 256, resampling: .nearest)
            for row in 0..<256 {
                for column in 0..<256 where small.pixel(x: column, y: row) != large.pixel(x: dx * 256 + column, y: dy * 256 + row) {
                    differing += 1
                }
            }
        }
        #expect(differing <= 512 * 512 / 1000)
    }

    @Test func nodataIsTransparentAndOnlyGridSourcesHaveStoredTiles() throws {
        let map = try Self.map("gray-point.tif")
        // The raster's top-left 16×16 pixels are its nodata value, 0: where a tile pixel's centre
        // falls among them it is transparent, where it falls on data opaque.
        let tile = try #require(WebMercatorTile(zoom: 15, x: 17749, y: 11410))
        let pixels = try map.pixels(of: tile, side: 256, resampling: .nearest)
        let metres = WebMercatorTile.side(zoom: 15) / 256
        var xs = (0..<65536).map { tile.west + (Double($0 % 256) + 0.5) * metres },
            ys = (0..<65536).map { tile.north - (Double($0 / 256) + 0.5) * metres }
        try CoordinateTransform(from: 3857, to: 32633).transform(xs: &xs, ys: &ys)
        var (blank, data) = (0, 0)
        for index in 0..<65536 {
            let (column, row) = map.georeference.transform.pixel(x: xs[index], y: ys[index])
            let alpha = Array(pixels.pixel(x: index % 256, y: index / 256))[3]
            if (1..<15).contains(column) && (1..<15).contains(row) {
                blank += 1
                #expect(alpha == 0)
            } else if (17..<250).contains(column) && (17..<250).contains(row) {
                data += 1
                #expect(alpha == 255)
            }
        }
        #expect(blank > 1000 && data > 1000)
        #expect(try map.storedTile(tile, side: 256) == nil)
    }

    @Test func tileJSONAndWMTSDescribeTheMap() throws {
        let map = try Self.map("geographic.tif")
        let json = try #require(
            try JSONSerialization.jsonObject(with: MapDocuments.tileJSON(map, name: "g", tilesURL: "http://h/{z}/{x}/{y}.png")) as? [String: Any])
        #expect(json["tilejson"] as? String == "3.0.0" && json["minzoom"] as? Int == 10 && json["maxzoom"] as? Int == 11)
        #expect(json["bounds"] as? [Double] == [14.8, 47.708, 15.056, 47.9] && json["tiles"] as? [String] == ["http://h/{z}/{x}/{y}.png"])
        let xml = String(
            decoding: MapDocuments.capabilities(map, name: "a<b", tilesURL: "http://h/{TileMatrix}/{TileCol}/{TileRow}.png", format: "image/png"),
            as: UTF8.self)
        #expect(xml.contains("<ows:Identifier>a&lt;b</ows:Identifier>") && xml.contains("<ows:Identifier>10</ows:Identifier>"))
        #expect(xml.contains("<ows:Identifier>11</ows:Identifier>") && !xml.contains("<ows:Identifier>12</ows:Identifier>"))
        #expect(MapDocuments.scaleDenominator(zoom: 0) > 559_082_264 && MapDocuments.scaleDenominator(zoom: 0) < 559_082_265)
    }
}
