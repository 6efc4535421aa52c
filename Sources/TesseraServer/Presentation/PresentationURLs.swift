import TesseraCore
import TesseraIIIF
import TesseraTiles
import TesseraViewing

/// The absolute URLs a Presentation document names: built per request from the server's base URL
/// and where each route collection is mounted, or (``staticTileSize`` set) the files
/// `tessera manifest` writes for a static host.
struct PresentationURLs: Sendable, Hashable {
    /// Where the Presentation routes are: `https://host/presentation/3`.
    var presentation: String
    /// Where the IIIF Image routes are: `https://host/iiif/3`.
    var iiif: String
    /// Where `video/{identifier}` and `files/{identifier}` are: `https://host`.
    var media: String
    /// Static files instead of routes: the side of the level-0 tiles written beside the documents,
    /// in pixels. Every URL is then a path under one base (`presentation`, `iiif` and `media` are
    /// it), with the identifier's folders as folders: `{path}/manifest.json`,
    /// `{folder}/collection.json`, and the image service `{path}` with its `info.json` and tiles.
    var staticTileSize: Int? = nil

    /// A percent-encoded identifier's path on a static host: its folders as folders.
    private static func staticPath(_ encodedIdentifier: String) -> String { encodedIdentifier.replacing("%2F", with: "/") }

    /// The manifest of a file or folder (`identifier` percent-encoded).
    func manifest(_ encodedIdentifier: String) -> String {
        staticTileSize == nil
            ? Self.manifest(encodedIdentifier, presentation: presentation)
            : presentation + (encodedIdentifier.isEmpty ? "" : "/" + Self.staticPath(encodedIdentifier)) + "/manifest.json"
    }

    /// The manifest of a file or folder (`identifier` percent-encoded) served under `presentation`
    /// (where the Presentation routes are): what an image's info.json names as its `partOf`.
    static func manifest(_ encodedIdentifier: String, presentation: String) -> String {
        presentation + "/" + encodedIdentifier + "/manifest"
    }

    /// The collection of `directory` (relative to the root, decoded; "" for the root).
    func collection(_ directory: String) -> String {
        let encoded = PercentEncoding.encode(directory)
        guard staticTileSize != nil else { return presentation + "/collection" + (directory.isEmpty ? "" : "/" + encoded) }
        return presentation + "/" + (directory.isEmpty ? "" : Self.staticPath(encoded) + "/") + "collection.json"
    }

    /// The Image API service of an image (`identifier` percent-encoded, with its `;n` page).
    func imageService(_ encodedIdentifier: String) -> String {
        iiif + "/" + (staticTileSize == nil ? encodedIdentifier : Self.staticPath(encodedIdentifier))
    }

    /// A video file: as the video routes serve it, or copied beside its manifest.
    func video(_ encodedIdentifier: String) -> String {
        guard staticTileSize != nil else { return media + "/video/" + encodedIdentifier }
        let path = Self.staticPath(encodedIdentifier)
        return media + "/" + path + "/" + (path.split(separator: "/").last.map(String.init) ?? path)
    }

    /// One frame of a video, 144 pixels high, from the frame-strip code; nil on a static host.
    func videoStill(_ encodedIdentifier: String) -> String? {
        staticTileSize == nil ? video(encodedIdentifier) + "/sprite.jpg?frames=1&height=144&mode=fast" : nil
    }

    /// A file as it is stored, as the file routes serve it; nil on a static host (originals are
    /// not copied there).
    func file(_ encodedIdentifier: String) -> String? {
        staticTileSize == nil ? media + "/files/" + encodedIdentifier : nil
    }

    /// The image a canvas of `size` (pixels) is painted with, from its service: the whole image at
    /// full size from the server; on a static host, the coarsest level of its tiles (the one file
    /// of the whole image a level-0 service has).
    func paintedImage(service: String, size: PixelSize) -> ContentResource {
        let (path, shown) =
            if let tileSize = staticTileSize { Self.coarsestLevel(size, tileSize: tileSize) } else { ("full/max", size) }
        return ContentResource(
            id: service + "/" + path + "/0/default.jpg", type: "Image", format: "image/jpeg", width: shown.width, height: shown.height,
            service: [ImageServiceReference(id: service, profile: staticTileSize == nil ? "level2" : "level0")])
    }

    /// An image of at most `side` pixels a side (never enlarged) from the server; on a static host,
    /// the coarsest level of the tiles.
    func thumbnail(service: String, size: PixelSize, side: Int) -> ContentResource {
        if staticTileSize != nil { return paintedImage(service: service, size: size) }
        let scale = min(1, Double(side) / Double(max(size.width, size.height)))
        let width = max(1, Int((Double(size.width) * scale).rounded())), height = max(1, Int((Double(size.height) * scale).rounded()))
        return ContentResource(
            id: service + "/full/\(width),\(height)/0/default.jpg", type: "Image", format: "image/jpeg", width: width, height: height,
            service: [ImageServiceReference(id: service)])
    }

    /// The `full/{w},{h}` path and size of the level of a level-0 pyramid that is one tile.
    private static func coarsestLevel(_ size: PixelSize, tileSize: Int) -> (path: String, size: PixelSize) {
        let layout = IIIFLayout(imageSize: size, name: "", tileSize: tileSize)
        let level = layout.levelSize(reduction: layout.levelCount - 1)
        return ("full/\(level.width),\(level.height)", level)
    }
}

extension PresentationURLs {
    /// The files of a static host under `base`, with level-0 tiles of `tileSize` pixels.
    init(staticBase base: String, tileSize: Int) {
        self.init(presentation: base, iiif: base, media: base, staticTileSize: tileSize)
    }
}
