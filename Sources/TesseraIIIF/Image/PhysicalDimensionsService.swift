/// The IIIF Services Annex's physical dimensions service (`physdim`): how large the object an
/// image shows is, as the size of one full-resolution pixel. For a slide scanned at 0.25 µm per
/// pixel it is `physicalScale` 0.00025 in `mm`, so a 12288-px-wide scan is 3.072 mm across. Made
/// only from a scanner's own metadata: a print resolution (a TIFF's 72 dpi) is not the size of
/// anything.
///
/// Written as the annex defines it (its own `@context`, `profile`), with the `@id` and `@type` a
/// service in an Image 3 `service` list or a Presentation 3 canvas's must have (the annex predates
/// them; the older services' `@` form is the one both specifications allow for such a service).
public struct PhysicalDimensionsService: Sendable, Hashable, Encodable {
    /// The service's URI: the image service's, with the fragment `#physdim` (nothing to fetch:
    /// the description is all there is).
    public var id: String
    /// The size of one full-resolution pixel in ``physicalUnits``.
    public var physicalScale: Double
    /// `mm`, `cm` or `in`.
    public var physicalUnits: String

    /// The service of the image at `imageService` whose full-resolution pixels are
    /// `micronsPerPixel` µm across, in millimetres.
    public init(imageService: String, micronsPerPixel: Double) {
        id = imageService + "#physdim"
        physicalScale = micronsPerPixel / 1000
        physicalUnits = "mm"
    }

    private enum CodingKeys: String, CodingKey {
        case context = "@context"
        case id = "@id"
        case type = "@type"
        case profile, physicalScale, physicalUnits
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("http://iiif.io/api/annex/services/physdim/1/context.json", forKey: .context)
        try container.encode(id, forKey: .id)
        try container.encode("PhysicalDimensions", forKey: .type)
        try container.encode("http://iiif.io/api/annex/services/physdim", forKey: .profile)
        try container.encode(physicalScale, forKey: .physicalScale)
        try container.encode(physicalUnits, forKey: .physicalUnits)
    }
}
