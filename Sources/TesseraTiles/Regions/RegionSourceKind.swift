public import TesseraCodecs
public import TesseraCore

/// A source to open, as a host hands it to the ``RegionSourceKind``s it knows.
public struct RegionSourceInput: Sendable {
    /// The bytes: a file, memory, or ranges of an object.
    public var input: ImageSource
    /// The identity of the bytes (a file's device, inode, length and time; an object's), which
    /// readers kept between requests are filed under.
    public var identity: FileIdentity
    /// The limits, page and colour handling of every decode.
    public var options: DecodeOptions

    public init(input: ImageSource, identity: FileIdentity, options: DecodeOptions) {
        self.input = input
        self.identity = identity
        self.options = options
    }
}

/// One kind of source a host can open (a pyramidal TIFF, a slide, a map), asked in turn: each
/// answers with its ``RegionSource`` when the input is one of its kind, nil when it is not. A
/// new kind is one conformer and one kind in the host's list; nothing else learns its name.
public protocol RegionSourceKind: Sendable {
    /// What hosts call this kind (`aperio`, `tiff-pyramid`): `tessera info`'s KIND.
    var name: String { get }

    /// `input` opened as this kind, or nil when it is not one. `header` is the codecs' probe of it,
    /// made on first call and shared by every kind asked (a kind that reads its own header need
    /// not call it).
    func open(_ input: RegionSourceInput, header: () throws -> ImageProperties) throws -> (any RegionSource)?
}

/// The kinds every host asks, in order, before the codecs: the one place a new kind is registered.
public enum RegionSourceKinds {
    /// The kinds Tessera reads natively (sharing `readers`, TIFF handles kept between reads), and
    /// the slides OpenSlide reads: its vendor formats before the pyramidal TIFF kinds, generic TIFF
    /// after them (``OpenSlideKind``).
    public static func standard(readers: TIFFReaderPool) -> [any RegionSourceKind] {
        [
            AperioSlideKind(readers: readers), DICOMSlideKind(), OpenSlideKind(.vendorFormats), OMETIFFKind(readers: readers),
            TIFFPyramidKind(readers: readers), OpenSlideKind(.genericTIFF), GeoTIFFKind(),
        ]
    }

    /// A file as a host opens it: read natively by a kind, or decoded by the codecs from its header.
    public enum OpenedFile {
        case native(kind: any RegionSourceKind, source: any RegionSource)
        case decoded(ImageProperties)
    }

    /// The file at `path` opened by the first of `kinds` it is one of, else its header as the codecs
    /// probe it (probed at most once for all of it).
    ///
    /// - Throws: a kind's error for a file of its kind it cannot read; else the probe's
    ///   (`ImageDecodingError.unknownFormat` for bytes that are no image: a video, say).
    public static func open(file path: String, kinds: [any RegionSourceKind], options: DecodeOptions = DecodeOptions()) throws -> OpenedFile {
        var probed: Result<ImageProperties, any Error>?
        func header() throws -> ImageProperties {
            let result = probed ?? Result { try ImageDecoder(options: options).probe(.file(path)) }
            probed = result
            return try result.get()
        }
        if let identity = FileIdentity(path: path) {
            let input = RegionSourceInput(input: .file(path), identity: identity, options: options)
            do {
                if let opened = try open(input, kinds: kinds, header: header) { return .native(kind: opened.kind, source: opened.source) }
            } catch ImageDecodingError.unknownFormat {
                // No image at all: the probe below says so.
            }
        }
        return .decoded(try header())
    }

    /// The levels of the file at `path`: those of the first of `kinds` it is one of, else those of
    /// the codecs' decode of it (``DecodedRegionSource``).
    ///
    /// - Throws: as ``open(file:kinds:options:)``.
    public static func levels(ofFileAt path: String, kinds: [any RegionSourceKind], options: DecodeOptions = DecodeOptions()) throws
        -> RegionLevels
    {
        switch try open(file: path, kinds: kinds, options: options) {
        case .native(_, let source): RegionLevels(source)
        case .decoded(let properties): RegionLevels(DecodedRegionSource(.file(path), properties: properties, options: options))
        }
    }

    /// `input` opened by the first of `kinds` it is one of, with that kind; nil when it is none of
    /// them. `header` is asked at most once.
    public static func open(
        _ input: RegionSourceInput, kinds: [any RegionSourceKind], header: () throws -> ImageProperties
    ) throws -> (kind: any RegionSourceKind, source: any RegionSource)? {
        for kind in kinds {
            if let opened = try kind.open(input, header: header) { return (kind, opened) }
        }
        return nil
    }
}

/// Tiled multi-resolution TIFF files (first page), read through one pool of readers.
public struct TIFFPyramidKind: RegionSourceKind {
    public let readers: TIFFReaderPool
    public var name: String { "tiff-pyramid" }

    public init(readers: TIFFReaderPool) { self.readers = readers }

    public func open(_ input: RegionSourceInput, header: () throws -> ImageProperties) throws -> (any RegionSource)? {
        // A pyramid's levels are of its first image; other pages are read as the images they are.
        guard let path = input.input.filePath, input.options.pageIndex == 0, case let properties = try header(), properties.format == .tiff
        else { return nil }
        let georeferencing = GeoTIFFKind.georeferencing(of: input)
        return try TIFFPyramidSource(
            path: path, identity: input.identity, properties: properties, georeferencing: georeferencing, options: input.options, readers: readers)
    }
}
