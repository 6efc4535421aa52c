import FuzzSupport
import TesseraCodecs
import TesseraCore
import TesseraTiles

// The slide kinds `tessera serve` asks first of every TIFF: the file's directories listed from
// their tags, an Aperio description parsed and its levels told from its other images, the levels
// opened (missing tiles allowed), and of every level its first and last tiles decoded and given as
// stored (the shared JPEG tables spliced in).
let scratch = ScratchDirectory()

fuzzMain { data in
    guard ImageFormat(sniffing: data.prefix(ImageFormat.sniffLength)) == .tiff else { return .rejected }
    let path = scratch.write(data, to: "input.svs")
    let options = DecodeOptions(maximumPixelCount: ImageHarness.maximumPixelCount)
    guard let identity = FileIdentity(path: path) else { return .tried }
    let input = RegionSourceInput(input: .file(path), identity: identity, options: options)
    // A pool per input: a reader kept for one input's identity must not answer for another's.
    let kind = AperioSlideKind(readers: TIFFReaderPool(readersPerFile: 1))
    guard let opened = try? kind.open(input, header: { try ImageDecoder(options: options).probe(.file(path)) }) else { return .tried }
    for (level, native) in opened.nativeLevels.enumerated() {
        guard let tile = native.storedTileSize, tile.width > 0, tile.height > 0 else { continue }
        let columns = (native.size.width + tile.width - 1) / tile.width, rows = (native.size.height + tile.height - 1) / tile.height
        for (column, row) in [(0, 0), (columns - 1, rows - 1)] {
            _ = try? opened.tile(level: level, column: column, row: row, context: .uncancellable)
            _ = try? opened.storedTile(level: level, column: column, row: row)
        }
    }
    return .tried
}
