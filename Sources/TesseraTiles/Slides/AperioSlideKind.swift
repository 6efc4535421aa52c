public import TesseraCodecs
import TesseraCore

/// Aperio SVS whole-slide images, read natively: a TIFF whose first ImageDescription starts
/// `Aperio`, whose tiled directories are the slide's levels (full resolution first, then about 4×
/// smaller each: 1, 4, 16, 32…), with stripped images between and after them that are not levels
/// (directory 1 a thumbnail, then a label and a macro photo, which the levels skip). Levels are
/// read tile by tile (JPEG with shared tables, YCbCr- or RGB-coded; JPEG 2000, Aperio's
/// compressions 33003 and 33005); missing tiles (length 0) are the slide's background, white; the
/// tiles a client asks for whole are given as stored (``RegionSource/storedTile(level:column:row:)``).
/// The scale is the description's `MPP`.
///
/// Levels are told as OpenSlide's `aperio` driver tells them: the tiled images; the stripped ones
/// are the slide's associated images (which OpenSlide names by NewSubfileType and description).
public struct AperioSlideKind: RegionSourceKind {
    public let readers: TIFFReaderPool
    public var name: String { "aperio" }

    public init(readers: TIFFReaderPool) { self.readers = readers }

    /// The header is the first level's, read here: the codecs' probe of a TIFF refuses missing
    /// tiles, which a slide may have, so a probe that failed is no answer; its first bytes are.
    public func open(_ input: RegionSourceInput, header: () throws -> ImageProperties) throws -> (any RegionSource)? {
        // A slide is one image (its other directories are not pages), in a file.
        guard let path = input.input.filePath, input.options.pageIndex == 0 else { return nil }
        let format = try (try? header())?.format ?? input.input.sniffedFormat()
        guard format == .tiff else { return nil }
        // The first image says whether it is a slide; only a slide's directories are all read.
        let directories = try TIFFDirectorySummary.directories(ofFileAt: path, options: input.options) { summary in
            summary.index > 0 || AperioDescription(summary.description) != nil
        }
        guard let description = AperioDescription(directories.first?.description ?? "") else { return nil }
        let levels = try Self.levelDirectories(directories)
        return try TIFFPyramidSource(
            path: path, images: levels, identity: input.identity, micronsPerPixel: description.micronsPerPixel,
            associatedImages: Self.associatedImages(directories, levels: levels), options: input.options, readers: readers)
    }

    /// The directories that are levels: the first, then every later tiled one stored as it is
    /// (tile size, compression) and smaller than the level before.
    ///
    /// - Throws: ``ImageDecodingError/unsupported(reason:)`` for a slide whose first image is not tiled.
    static func levelDirectories(_ directories: [TIFFDirectorySummary]) throws -> [TIFFImageAddress] {
        guard let first = directories.first, let tileSize = first.tileSize else {
            throw ImageDecodingError.unsupported(reason: "an Aperio slide whose first image is not tiled")
        }
        var levels = [first]
        for directory in directories.dropFirst() where levels.count < TIFFPyramid.maximumLevelCount {
            guard directory.tileSize == tileSize, directory.compression == first.compression, let last = levels.last,
                directory.size.width < last.size.width, directory.size.height <= last.size.height, directory.size.width > 0,
                directory.size.height > 0
            else { continue }
            levels.append(directory)
        }
        return levels.map { .directory($0.index) }
    }

    /// The directories that are not levels, named as OpenSlide's `aperio` driver names them: the
    /// stripped second directory the thumbnail; a label (NewSubfileType 1, or a description whose
    /// second line starts `label`) and a macro photo (9, or `macro`).
    static func associatedImages(_ directories: [TIFFDirectorySummary], levels: [TIFFImageAddress]) -> [TIFFAssociatedImage] {
        directories.filter { !levels.contains(.directory($0.index)) }.compactMap { directory in
            let kind = directory.description.split(whereSeparator: \.isNewline).dropFirst().first.map(String.init) ?? ""
            let name: String? =
                if directory.index == 1 && directory.tileSize == nil { "thumbnail" } else if directory.subfileType == 1 || kind.hasPrefix("label") {
                    "label"
                } else if directory.subfileType == 9 || kind.hasPrefix("macro") { "macro" } else { nil }
            return name.map { TIFFAssociatedImage(AssociatedImage(name: $0, size: directory.size), image: .directory(directory.index)) }
        }
    }

}

/// What an Aperio ImageDescription says: `Aperio Image Library v10.0.51\r\n46920x33014 [0,100
/// 46000x32914] (256x256) JPEG/RGB Q=30|AppMag = 20|MPP = 0.4990|…`, a header and then
/// `key = value` fields between `|`.
struct AperioDescription: Equatable {
    /// `key = value` fields after the header, keys as written (later ones win).
    let fields: [String: String]

    /// Nil when `text` is not an Aperio description.
    init?(_ text: String) {
        guard text.hasPrefix("Aperio") else { return nil }
        var fields: [String: String] = [:]
        for field in text.split(separator: "|").dropFirst() {
            guard let equals = field.firstIndex(of: "=") else { continue }
            fields[Self.trimmed(field[..<equals])] = Self.trimmed(field[field.index(after: equals)...])
        }
        self.fields = fields
    }

    /// `MPP`: micrometres per full-resolution pixel, when it is a positive, finite number.
    var micronsPerPixel: Double? { fields["MPP"].flatMap(Double.init).flatMap { $0.isFinite && $0 > 0 ? $0 : nil } }

    private static func trimmed(_ text: Substring) -> String {
        String(text.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
