import FoundationEssentials
import FuzzSupport
import TesseraCodecs
import TesseraCore
import TesseraTiles

// A DICOM instance as the DICOM slide kind reads it, alone in its folder: the header walked
// (meta group, explicit or implicit VRs, sequences stepped over or read: shared and per-frame
// functional groups, optical paths), the frame table made (offset tables, or a walk of the
// fragments), the slide's levels opened, and of every level the first and last tiles decoded
// (JPEG, JPEG 2000, uncompressed; a sparse gap filled) and given as stored.
let scratch = ScratchDirectory()

fuzzMain { data in
    guard data.count >= 132, data[data.startIndex + 128..<data.startIndex + 132].elementsEqual("DICM".utf8) else { return .rejected }
    let path = scratch.write(data, to: "input.dcm")
    let options = DecodeOptions(maximumPixelCount: ImageHarness.maximumPixelCount)
    guard let identity = FileIdentity(path: path) else { return .tried }
    let input = RegionSourceInput(input: .file(path), identity: identity, options: options)
    guard let opened = try? DICOMSlideKind().open(input, header: { throw ImageDecodingError.unknownFormat }) else { return .tried }
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
