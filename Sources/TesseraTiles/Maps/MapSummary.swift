public import TesseraCodecs

/// What a host shows of a map (`tessera info`): its coordinate system, where it lies, its pixels'
/// size, no-data value, the web-map zooms that show it, and whether its file is laid out as a
/// Cloud-Optimized GeoTIFF.
public struct MapSummary: Sendable, Codable, Equatable {
    /// `EPSG:32633`.
    public var crs: String
    /// West, south, east, north in WGS 84 degrees.
    public var bounds: [Double]
    /// A full-resolution pixel's width and height in the CRS's units (metres or degrees).
    public var pixelSize: [Double]
    /// The no-data value, as text (`nan` for NaN); nil when the file has none.
    public var noData: String?
    public var minZoom: Int
    public var maxZoom: Int
    /// Whether the file is a COG (`CloudOptimizedLayout`); nil when its layout was not read.
    public var cloudOptimized: Bool?
    /// Why it is not, one sentence each; nil when it is, or when not read.
    public var layoutProblems: [String]?

    /// The summary of `map`; `directories` the TIFF's main chain with its data offsets, when its layout is to be judged.
    public init(_ map: MapSource, directories: [TIFFDirectorySummary]?) {
        let reference = map.georeference, transform = reference.transform
        crs = "EPSG:\(reference.epsg)"
        bounds = [map.bounds.west, map.bounds.south, map.bounds.east, map.bounds.north]
        pixelSize = [
            (transform.xPerColumn * transform.xPerColumn + transform.yPerColumn * transform.yPerColumn).squareRoot(),
            (transform.xPerRow * transform.xPerRow + transform.yPerRow * transform.yPerRow).squareRoot(),
        ]
        noData = reference.noData.map { $0.isNaN ? "nan" : $0 == $0.rounded() && abs($0) < 1e15 ? String(Int($0)) : "\($0)" }
        (minZoom, maxZoom) = (map.zooms.lowerBound, map.zooms.upperBound)
        let problems = directories.map(CloudOptimizedLayout.problems)
        cloudOptimized = problems.map(\.isEmpty)
        layoutProblems = problems.flatMap { $0.isEmpty ? nil : $0 }
    }
}
