import FoundationEssentials
import FuzzSupport
import TesseraCodecs
import TesseraCore
import TesseraTiles

// A GeoTIFF as the map routes read it: its GeoTIFF tags (read as libtiff's anonymous fields), the
// GeoKey directory parsed into a CRS and a pixel-to-model transform, the levels opened with their
// masks, the map made (its bounds through PROJ) and its tile at the deepest zoom under the
// raster's centre rendered both ways and asked as stored. An input that is not a TIFF is read as
// the tags themselves (key shorts, then tiepoint and scale doubles), so the GeoKey parser is
// reached without a TIFF around it.
let scratch = ScratchDirectory()

fuzzMain { data in
    guard ImageFormat(sniffing: data.prefix(ImageFormat.sniffLength)) == .tiff else {
        var tags = GeoTIFFTags()
        let shorts = data.count / 2
        tags.keyDirectory = (0..<min(shorts, 64)).map { UInt16(data[data.startIndex + 2 * $0]) << 8 | UInt16(data[data.startIndex + 2 * $0 + 1]) }
        let doubles = data.dropFirst(128)
        let values = stride(from: 0, to: doubles.count - 7, by: 8).map { offset in
            Double(bitPattern: doubles.dropFirst(offset).prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        }
        tags.tiepoints = Array(values.prefix(6))
        tags.pixelScale = Array(values.dropFirst(6).prefix(3))
        if let reference = try? GeoReference(tags) {
            _ = reference.transform.pixel(x: 500_000, y: 5_300_000)
        }
        return .tried
    }
    let path = scratch.write(data, to: "input.tif")
    let options = DecodeOptions(maximumPixelCount: 2048 * 2048)
    guard let tags = try? GeoTIFFTags.read(.file(path), options: options), let reference = try? GeoReference(tags),
        let levels = try? RegionSourceKinds.levels(
            ofFileAt: path, kinds: [TIFFPyramidKind(readers: TIFFReaderPool(readersPerFile: 1))], options: options),
        let map = try? MapSource(levels: levels, georeference: reference)
    else { return .tried }
    let zoom = map.zooms.upperBound
    let x = (map.bounds.west + map.bounds.east) / 2, y = (map.bounds.mercatorNorth + map.bounds.mercatorSouth) / 2
    let count = Double(1 << zoom), side = WebMercatorTile.side(zoom: zoom)
    let column = Int(((GeoBounds.mercatorX(longitude: x) + WebMercatorTile.worldWidth / 2) / side).rounded(.down))
    let row = Int(((WebMercatorTile.worldWidth / 2 - y) / side).rounded(.down))
    guard let tile = WebMercatorTile(zoom: zoom, x: min(max(column, 0), Int(count) - 1), y: min(max(row, 0), Int(count) - 1)) else {
        return .tried
    }
    for resampling in MapResampling.allCases { _ = try? map.pixels(of: tile, side: 256, resampling: resampling) }
    _ = try? map.storedTile(tile, side: 256)
    return .tried
}
