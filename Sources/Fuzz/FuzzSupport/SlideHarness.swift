public import FoundationEssentials
public import TesseraCodecs
import TesseraCore
public import TesseraTiles

/// What the server does with a slide a kind opened from a fuzz input: of every native level, the
/// first and the last tile decoded and given as stored.
public enum SlideHarness {
    /// `data` written to `name` in `scratch` and opened by `kind` (its header, when asked, the
    /// codecs' probe); then every level's corner tiles read both ways. `.rejected` when `accepts`
    /// says the bytes are not the kind's to try.
    public static func run(
        _ data: Data, in scratch: ScratchDirectory, as name: String, kind: any RegionSourceKind, accepts: (Data) -> Bool
    ) -> FuzzVerdict {
        guard accepts(data) else { return .rejected }
        let path = scratch.write(data, to: name)
        let options = DecodeOptions(maximumPixelCount: ImageHarness.maximumPixelCount)
        guard let identity = FileIdentity(path: path) else { return .tried }
        let input = RegionSourceInput(input: .file(path), identity: identity, options: options)
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
}
