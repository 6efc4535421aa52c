import Testing

@testable import TesseraCodecs

/// GeoTIFF's georeferencing as GDAL writes it (the fixtures of scripts/make-map-fixtures.py),
/// and tags no map can be made of refused with a reason, never a crash.
@Suite struct GeoReferenceTests {
    static func reference(_ name: String) throws -> GeoReference? {
        try GeoReference(GeoTIFFTags.read(.file(Fixtures.path("maps/" + name))))
    }

    /// A key directory of `entries` (key, SHORT value), version 1.
    static func keys(_ entries: [(UInt16, UInt16)]) -> [UInt16] {
        [1, 1, 0, UInt16(entries.count)] + entries.flatMap { [$0.0, 0, 1, $0.1] }
    }

    static func tags(keys: [UInt16], scale: [Double] = [10, 10, 0], tiepoints: [Double] = [0, 0, 0, 500_000, 5_300_000, 0]) -> GeoTIFFTags {
        var tags = GeoTIFFTags()
        (tags.keyDirectory, tags.pixelScale, tags.tiepoints) = (keys, scale, tiepoints)
        return tags
    }

    @Test func aProjectedGeoTIFFIsItsEPSGCodeAndCornerTransform() throws {
        // PixelIsPoint: GDAL tied the first pixel's centre to (500005, 5299995); its corner is the origin.
        let gray = try #require(try Self.reference("gray-point.tif"))
        #expect(gray.epsg == 32633)
        #expect(gray.transform == GeoTransform(originX: 500_000, xPerColumn: 10, xPerRow: 0, originY: 5_300_000, yPerColumn: 0, yPerRow: -10))
        #expect(gray.noData == 0)
        let geographic = try #require(try Self.reference("geographic.tif"))
        #expect(geographic.epsg == 4326 && geographic.noData == nil)
        let (x, y) = geographic.transform.apply(column: 256, row: 192)
        #expect(abs(x - 15.056) < 1e-9 && abs(y - 47.708) < 1e-9)
        let (column, row) = geographic.transform.pixel(x: 14.9, y: 47.8)
        #expect(abs(column - 100) < 1e-6 && abs(row - 100) < 1e-6)
    }

    @Test func aTIFFWithoutGeoKeysIsNoMap() throws {
        #expect(try GeoReference(GeoTIFFTags.read(.file(Fixtures.path("tiff-rgb-tiled.tif")))) == nil)
        #expect(try GeoReference(GeoTIFFTags()) == nil)
    }

    @Test func aTransformationMatrixMayRotate() throws {
        var tags = Self.tags(keys: Self.keys([(1024, 1), (3072, 32633)]), scale: [], tiepoints: [])
        tags.transformation = [0, 10, 0, 1000, 10, 0, 0, 2000, 0, 0, 0, 0, 0, 0, 0, 1]
        let reference = try #require(try GeoReference(tags))
        #expect(reference.transform.apply(column: 3, row: 4) == (1040, 2030))
        #expect(reference.transform.pixel(x: 1040, y: 2030) == (3, 4))
    }

    @Test func nodataIsANumberOrNaN() throws {
        for (text, expected) in [(" -9999 ", -9999.0), ("0", 0), ("1e3", 1000)] {
            var tags = Self.tags(keys: Self.keys([(3072, 32633)]))
            tags.noData = text
            #expect(try GeoReference(tags)?.noData == expected, "\(text)")
        }
        var tags = Self.tags(keys: Self.keys([(3072, 32633)]))
        tags.noData = "nan"
        #expect(try GeoReference(tags)?.noData?.isNaN == true)
    }

    @Test(arguments: [
        ("more keys than the directory holds", [1, 1, 0, 200, 1024, 0, 1, 1] as [UInt16], [10.0, 10, 0]),
        ("a directory of version 2", [2, 1, 0, 0], [10, 10, 0]),
        ("a pixel scale of 0", GeoReferenceTests.keys([(3072, 32633)]), [0, 0, 0]),
        ("an infinite pixel scale", GeoReferenceTests.keys([(3072, 32633)]), [.infinity, 10, 0]),
        ("a user-defined CRS", GeoReferenceTests.keys([(1024, 1), (3072, 32767)]), [10, 10, 0]),
        ("a private CRS code", GeoReferenceTests.keys([(1024, 1), (3072, 40000)]), [10, 10, 0]),
        ("no CRS", GeoReferenceTests.keys([(1024, 1)]), [10, 10, 0]),
        ("a geocentric model", GeoReferenceTests.keys([(1024, 3), (2048, 4326)]), [10, 10, 0]),
    ])
    func unreadableTagsAreRefusedSayingWhy(_ why: String, keys: [UInt16], scale: [Double]) {
        #expect(throws: ImageDecodingError.self, "\(why)") { try GeoReference(Self.tags(keys: keys, scale: scale)) }
    }

    @Test func hostileFilesAreRefusedAndAnUnknownCodeIsLeftToPROJ() throws {
        for name in ["hostile-keys.tif", "hostile-user-crs.tif", "hostile-scale.tif"] {
            #expect(throws: ImageDecodingError.self, "\(name)") { try Self.reference(name) }
        }
        // The key directory is sound; only PROJ can say the code names nothing.
        #expect(try Self.reference("hostile-unknown-epsg.tif")?.epsg == 1)
        #expect(throws: ImageDecodingError.self) { try CoordinateTransform(from: 3857, to: 1) }
    }

    @Test func projTransformsUTMToWebMercatorAndBack() throws {
        let forward = try CoordinateTransform.shared(from: 32633, to: 3857), back = try CoordinateTransform.shared(from: 3857, to: 32633)
        // UTM 33N's central meridian (15° E) at the false easting, 5,300 km north.
        var xs = [500_000.0], ys = [5_300_000.0]
        forward.transform(xs: &xs, ys: &ys)
        #expect(abs(xs[0] - 15.0 / 180 * 20_037_508.342789244) < 0.01)
        back.transform(xs: &xs, ys: &ys)
        #expect(abs(xs[0] - 500_000) < 1e-6 && abs(ys[0] - 5_300_000) < 1e-6)
        let bounds = try #require(
            try CoordinateTransform.shared(from: 32633, to: 4326).bounds(minX: 500_000, minY: 5_297_440, maxX: 502_560, maxY: 5_300_000))
        #expect(abs(bounds.minX - 15) < 1e-9 && bounds.maxY > 47.8 && bounds.maxY < 47.9)
    }
}
