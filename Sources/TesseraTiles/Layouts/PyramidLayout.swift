public import TesseraCodecs
public import TesseraCore
public import TesseraViewing

/// The kinds of pyramid Tessera writes, with their parameters; ``layout(imageSize:name:)`` makes
/// the geometry once the image's size is known.
public enum PyramidLayout: Sendable, Hashable {
    /// Deep Zoom (`DeepZoomLayout`): `NAME.dzi` and `NAME_files/`.
    case deepZoom(tileSize: Int = 254, overlap: Int = 1)
    /// IIIF Image API level 0 static files (`IIIFLayout`): `NAME/info.json` and its tiles.
    case iiif(tileSize: Int = 512, baseURL: String? = nil)
    /// Slippy-map tiles (`XYZLayout`): `NAME/{z}/{x}/{y}`.
    case xyz(tileSize: Int = 256)
    /// THTiledImageView's naming (`THTiledLayout`).
    case thTiled(tileSize: Int = 256)

    /// The geometry of a pyramid named `name` for an image of `imageSize` pixels.
    public func layout(imageSize: PixelSize, name: String) -> any TileLayout {
        switch self {
        case .deepZoom(let tileSize, let overlap):
            DeepZoomLayout(imageSize: imageSize, name: name, tileSize: tileSize, overlap: overlap)
        case .iiif(let tileSize, let baseURL):
            IIIFLayout(imageSize: imageSize, name: name, tileSize: tileSize, baseURL: baseURL)
        case .xyz(let tileSize):
            XYZLayout(imageSize: imageSize, name: name, tileSize: tileSize)
        case .thTiled(let tileSize):
            THTiledLayout(imageSize: imageSize, name: name, tileSize: tileSize)
        }
    }

    /// Tile file extension: Deep Zoom names the format as libvips does (`jpeg`); IIIF's format
    /// parameter and the others use `jpg`.
    public func fileExtension(for encoding: EncodingFormat) -> String {
        switch (self, encoding) {
        case (.deepZoom, .jpeg): "jpeg"
        default: encoding.fileExtension
        }
    }

    /// The layout's short name, as `tessera tile --layout` takes it: `dzi`, `iiif`, `xyz` or `th`.
    public var name: String {
        switch self {
        case .deepZoom: "dzi"
        case .iiif: "iiif"
        case .xyz: "xyz"
        case .thTiled: "th"
        }
    }
}
