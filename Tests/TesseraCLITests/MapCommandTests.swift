import Foundation
import Testing

/// `tessera info` on GeoTIFFs (the committed maps of scripts/make-map-fixtures.py): the map's
/// coordinate system, bounds, pixel size, nodata, zooms and whether it is a COG, by GDAL's rules;
/// a file whose GeoKeys cannot be read is one line naming it.
@Suite struct MapCommandTests {
    static func map(_ name: String) throws -> [String: Any] {
        let result = try CLI.run(["info", "--json", CLI.fixture("maps/" + name)])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        return try #require(object["map"] as? [String: Any])
    }

    @Test func infoDescribesTheMap() throws {
        let geographic = try Self.map("geographic.tif")
        #expect(geographic["crs"] as? String == "EPSG:4326" && geographic["bounds"] as? [Double] == [14.8, 47.708, 15.056, 47.9])
        let pixel = try #require(geographic["pixelSize"] as? [Double])
        #expect(pixel.count == 2 && pixel.allSatisfy { abs($0 - 0.001) < 1e-12 } && geographic["noData"] == nil)
        #expect(geographic["minZoom"] as? Int == 10 && geographic["maxZoom"] as? Int == 11)
        // gdal_translate -of COG wrote it; GDAL's validator agrees.
        #expect(geographic["cloudOptimized"] as? Bool == true && geographic["layoutProblems"] == nil)
        // A tiled GeoTIFF with overviews added after (gdaladdo): GDAL's validator says it is none.
        let gray = try Self.map("gray-point.tif")
        #expect(gray["crs"] as? String == "EPSG:32633" && gray["noData"] as? String == "0" && gray["pixelSize"] as? [Double] == [10, 10])
        #expect(gray["cloudOptimized"] as? Bool == false)
        #expect((gray["layoutProblems"] as? [String])?.contains { $0.contains("overview is not before") } == true)
        let table = try CLI.run(["info", CLI.fixture("maps/geographic.tif")]).stdout
        #expect(table.contains("EPSG:4326") && table.contains("14.80000, 47.70800, 15.05600, 47.90000") && table.contains("10–11"), "\(table)")
    }

    @Test func aFileNoMapCanBeMadeOfIsOneLineNamingIt() throws {
        let result = try CLI.run(["info", CLI.fixture("maps/hostile-keys.tif"), CLI.fixture("maps/geographic.tif")])
        #expect(result.status != 0)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("hostile-keys.tif") && lines[0].contains("GeoKey"), "\(result.stderr)")
        // The other file is still described.
        #expect(result.stdout.contains("EPSG:4326"))
    }

    @Test func tileWritesTheWebMapsTilesAndTileJSON() throws {
        let output = try CLI.scratchDirectory("map-tiles")
        defer { try? FileManager.default.removeItem(atPath: output) }
        let result = try CLI.run(["tile", CLI.fixture("maps/geographic.tif"), "--layout", "xyz", "--output", output, "--format", "png", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        // z10: 2 tiles, z11: 2×3 over 14.8–15.056°E, 47.708–47.9°N.
        #expect(summary["tiles"] as? Int == 8 && summary["levels"] as? Int == 2)
        let root = output + "/geographic"
        let tilejson = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: root + "/tilejson.json"))) as? [String: Any])
        #expect(tilejson["tiles"] as? [String] == ["{z}/{x}/{y}.png"] && tilejson["minzoom"] as? Int == 10)
        let tile = try Data(contentsOf: URL(fileURLWithPath: root + "/11/1108/712.png"))
        // A PNG of 256×256 RGBA (IHDR: width, height, depth 8, colour type 6).
        #expect(tile.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        #expect(Array(tile[16..<26]) == [0, 0, 1, 0, 0, 0, 1, 0, 8, 6])
        // The tiles are a map's only: a 300-px map tile or an S3 output is refused up front.
        #expect(try CLI.run(["tile", CLI.fixture("maps/geographic.tif"), "--layout", "xyz", "--output", output, "--tile-size", "300"]).status != 0)
    }
}
