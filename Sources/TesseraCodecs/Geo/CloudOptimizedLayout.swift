import TesseraCore

/// Whether a TIFF is laid out as a Cloud-Optimized GeoTIFF, by the rules GDAL's
/// `validate_cloud_optimized_geotiff.py` checks, so a reader over HTTP ranges needs one read for
/// the header and one per tile: the full image tiled, with overviews when it is over 512 px on a
/// side; every directory before any image data, in order; each overview's data before the larger
/// level's (the smallest first, the full image last).
public enum CloudOptimizedLayout {
    /// What keeps the TIFF of `directories` (its main chain, ``TIFFDirectorySummary/directories(ofFileAt:options:readsDataOffsets:while:)``, with the data offsets)
    /// from being a COG, one sentence each; empty when it is one.
    public static func problems(_ directories: [TIFFDirectorySummary]) -> [String] {
        guard let first = directories.first else { return ["the file has no image"] }
        var problems: [String] = []
        let large = first.size.width > 512 || first.size.height > 512
        if first.tileSize == nil && large { problems.append("the full-resolution image is in strips, not tiles") }
        // Images: the full one and its overviews (reduced, not masks).
        let images = directories.filter { $0.index == 0 || $0.subfileType & 5 == 1 }
        if images.count == 1 && large { problems.append("the image is over 512 px and has no overviews") }
        if zip(directories, directories.dropFirst()).contains(where: { $0.offset >= $1.offset }) {
            problems.append("its directories are not in file order")
        }
        let lastDirectory = directories.map(\.offset).max() ?? 0
        if let firstData = directories.compactMap(\.dataOffsets?.lowerBound).min(), firstData < lastDirectory {
            problems.append("image data comes before the last directory (the header is not all at the front)")
        }
        for (larger, smaller) in zip(images, images.dropFirst()) {
            if let large = larger.dataOffsets, let small = smaller.dataOffsets, small.upperBound > large.lowerBound {
                problems.append("the data of the \(smaller.size.width)×\(smaller.size.height) overview is not before the larger level's")
            }
        }
        return problems
    }
}
