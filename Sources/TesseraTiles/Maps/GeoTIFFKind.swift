public import TesseraCodecs

/// A GeoTIFF no other kind reads natively (in strips, or a single tiled level): its first page
/// decoded by the codecs as any TIFF is (``DecodedRegionSource``), with its georeference, so it is
/// a map too. Asked after the pyramid kinds, which keep the georeference of the tiled pyramids
/// (COGs) they read.
public struct GeoTIFFKind: RegionSourceKind {
    public var name: String { "geotiff" }

    public init() {}

    public func open(_ input: RegionSourceInput, header: () throws -> ImageProperties) throws -> (any RegionSource)? {
        guard input.options.pageIndex == 0, case let properties = try header(), properties.format == .tiff,
            let tags = try? GeoTIFFTags.read(input.input, options: input.options), tags.isGeoreferenced
        else { return nil }
        // The tags read once: whether it is a map, then what kind of one.
        let georeferencing = Result { () throws(ImageDecodingError) in try GeoReference(tags) }
        return DecodedRegionSource(input.input, properties: properties, options: input.options, georeferencing: georeferencing)
    }

    /// What the GeoTIFF tags of `input`'s first image say, failure included: kept with the source
    /// as read, so the map routes report it and the image's other routes never ask.
    static func georeferencing(of input: RegionSourceInput) -> Result<GeoReference?, ImageDecodingError> {
        Result { () throws(ImageDecodingError) in try GeoReference(GeoTIFFTags.read(input.input, options: input.options)) }
    }
}
