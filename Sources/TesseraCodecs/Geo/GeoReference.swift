/// Where a raster lies on the Earth: its coordinate reference system (an EPSG code) and the affine
/// map from its pixels to that system's coordinates, read from GeoTIFF's tags. Pixel coordinates
/// are of pixel corners: (0, 0) is the top-left corner of the first pixel, (width, height) the
/// bottom-right corner of the last.
public struct GeoReference: Sendable, Equatable, Hashable {
    /// The EPSG code of the coordinate reference system (32633 for UTM zone 33N, 4326 for WGS 84
    /// longitude/latitude, 3857 for Web Mercator).
    public var epsg: Int
    /// From pixel corners to the CRS's coordinates (metres or degrees).
    public var transform: GeoTransform
    /// The sample value that means "no data" (GDAL_NODATA), or nil; NaN for floating-point data
    /// marked so.
    public var noData: Double?

    public init(epsg: Int, transform: GeoTransform, noData: Double? = nil) {
        self.epsg = epsg
        self.transform = transform
        self.noData = noData
    }

    /// GeoTIFF's keys that this reader uses.
    private enum Key: UInt16 {
        case modelType = 1024
        case rasterType = 1025
        case geographicType = 2048
        case projectedType = 3072
    }

    /// The georeference `tags` describe, or nil when they describe none (no key directory or no
    /// raster-to-model tag).
    ///
    /// - Throws: `ImageDecodingError.corrupt` for keys or matrices that cannot be (a directory
    ///   whose keys run past it, a degenerate or non-finite transform), `.unsupported` for a CRS
    ///   given by parameters rather than by an EPSG code (user-defined, 32767) or a 3-D model.
    public init?(_ tags: GeoTIFFTags) throws(ImageDecodingError) {
        guard tags.isGeoreferenced else { return nil }
        let keys = try Self.keys(tags.keyDirectory)
        let isPoint = keys[Key.rasterType.rawValue] == 2
        let projected = keys[Key.projectedType.rawValue].map(Int.init), geographic = keys[Key.geographicType.rawValue].map(Int.init)
        let code: Int
        switch keys[Key.modelType.rawValue] {
        case 1: code = projected ?? 0
        case 2: code = geographic ?? 0
        case nil: code = projected ?? geographic ?? 0
        case let model?: throw .unsupported(reason: "GeoTIFF model type \(model) (only projected and geographic rasters are maps)")
        }
        // 32767 is GeoTIFF's "user-defined" (the CRS spelt out in parameters); 32768 and up are
        // private codes: neither names an EPSG system.
        guard code > 0, code < 32767 else {
            throw .unsupported(
                reason: code == 0
                    ? "a GeoTIFF without a coordinate system"
                    : "a coordinate system given as \(code == 32767 ? "parameters" : "a private code") (only EPSG codes are read)")
        }
        var transform = try Self.transform(tags)
        // PixelIsPoint: the model point is a pixel's centre, so its corner is half a pixel before.
        if isPoint { transform = transform.shifted(columns: -0.5, rows: -0.5) }
        guard transform.isInvertible else { throw .corrupt(reason: "the GeoTIFF's pixel-to-model transform is degenerate") }
        let noData = tags.noData.flatMap { text in
            let trimmed = String(text.filter { !$0.isWhitespace })
            return Double(trimmed) ?? (trimmed.lowercased() == "nan" ? .nan : nil)
        }
        self.init(epsg: code, transform: transform, noData: noData)
    }

    /// The key directory as a map from key to its SHORT value (keys stored elsewhere, as doubles or
    /// text, are not among those read here).
    private static func keys(_ directory: [UInt16]) throws(ImageDecodingError) -> [UInt16: UInt16] {
        guard directory.count >= 4, directory[0] == 1 else { throw .corrupt(reason: "a GeoKey directory without its version 1 header") }
        let count = Int(directory[3])
        guard 4 + 4 * count <= directory.count else {
            throw .corrupt(reason: "a GeoKey directory of \(directory.count) values claims \(count) keys")
        }
        var keys: [UInt16: UInt16] = [:]
        for index in 0..<count {
            let entry = directory[(4 + 4 * index)...].prefix(4).map { $0 }
            // Location 0: the value is the entry's last short.
            if entry[1] == 0 { keys[entry[0]] = entry[3] }
        }
        return keys
    }

    /// The raster-to-model transform: the matrix when there is one, else the first tiepoint and
    /// the pixel scale (y grows downwards in the raster, upwards in the model).
    private static func transform(_ tags: GeoTIFFTags) throws(ImageDecodingError) -> GeoTransform {
        let transform: GeoTransform
        if tags.transformation.count >= 16 {
            let m = tags.transformation
            guard m[2] == 0, m[6] == 0 else { throw .unsupported(reason: "a GeoTIFF transform with a z term") }
            transform = GeoTransform(originX: m[3], xPerColumn: m[0], xPerRow: m[1], originY: m[7], yPerColumn: m[4], yPerRow: m[5])
        } else if tags.tiepoints.count >= 6, tags.pixelScale.count >= 2 {
            let (t, s) = (tags.tiepoints, tags.pixelScale)
            guard t.count == 6 else { throw .unsupported(reason: "a GeoTIFF georeferenced by \(t.count / 6) control points") }
            transform = GeoTransform(
                originX: t[3] - t[0] * s[0], xPerColumn: s[0], xPerRow: 0, originY: t[4] + t[1] * s[1], yPerColumn: 0, yPerRow: -s[1])
        } else {
            throw .corrupt(reason: "a GeoTIFF with neither a transform nor a tiepoint and a pixel scale")
        }
        let values = [transform.originX, transform.xPerColumn, transform.xPerRow, transform.originY, transform.yPerColumn, transform.yPerRow]
        guard values.allSatisfy({ $0.isFinite && abs($0) < 1e15 }) else { throw .corrupt(reason: "a GeoTIFF transform that is not finite") }
        return transform
    }
}

/// An affine map from pixel coordinates to a CRS's: `x = originX + column·xPerColumn + row·xPerRow`,
/// `y = originY + column·yPerColumn + row·yPerRow` (GDAL's geotransform).
public struct GeoTransform: Sendable, Equatable, Hashable {
    public var originX, xPerColumn, xPerRow, originY, yPerColumn, yPerRow: Double

    public init(originX: Double, xPerColumn: Double, xPerRow: Double, originY: Double, yPerColumn: Double, yPerRow: Double) {
        (self.originX, self.xPerColumn, self.xPerRow) = (originX, xPerColumn, xPerRow)
        (self.originY, self.yPerColumn, self.yPerRow) = (originY, yPerColumn, yPerRow)
    }

    private var determinant: Double { xPerColumn * yPerRow - xPerRow * yPerColumn }

    /// Whether the map has an inverse (a pixel spans some area).
    public var isInvertible: Bool { determinant.isNormal }

    /// The CRS coordinates of pixel position (`column`, `row`).
    public func apply(column: Double, row: Double) -> (x: Double, y: Double) {
        (originX + column * xPerColumn + row * xPerRow, originY + column * yPerColumn + row * yPerRow)
    }

    /// The pixel position of CRS coordinates (`x`, `y`).
    public func pixel(x: Double, y: Double) -> (column: Double, row: Double) {
        let (dx, dy) = (x - originX, y - originY), d = determinant
        return ((dx * yPerRow - dy * xPerRow) / d, (dy * xPerColumn - dx * yPerColumn) / d)
    }

    /// The same map with pixel positions moved by (`columns`, `rows`) first.
    public func shifted(columns: Double, rows: Double) -> GeoTransform {
        let (x, y) = apply(column: columns, row: rows)
        return GeoTransform(originX: x, xPerColumn: xPerColumn, xPerRow: xPerRow, originY: y, yPerColumn: yPerColumn, yPerRow: yPerRow)
    }

    /// The map of a level `downsample` times smaller on each side.
    public func scaled(by downsample: Double) -> GeoTransform {
        GeoTransform(
            originX: originX, xPerColumn: xPerColumn * downsample, xPerRow: xPerRow * downsample, originY: originY,
            yPerColumn: yPerColumn * downsample, yPerRow: yPerRow * downsample)
    }
}
