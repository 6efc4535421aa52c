/// The IIIF Services Annex's physical dimensions service (`physdim`): how large the object an
/// image shows is, as the size of one full-resolution pixel. For a slide scanned at 0.25 µm per
/// pixel it is `physicalScale` 0.00025 in `mm`, so a 12288-px-wide scan is 3.072 mm across. Made
/// only from a scanner's own metadata: a print resolution (a TIFF's 72 dpi) is not the size of
/// anything.
public struct PhysicalDimensionsService: Sendable, Hashable, Encodable {
    /// The size of one full-resolution pixel in ``physicalUnits``.
    public var physicalScale: Double
    /// `mm`, `cm` or `in`.
    public var physicalUnits: String

    /// The service of an image whose full-resolution pixels are `micronsPerPixel` µm across, in millimetres.
    public init(micronsPerPixel: Double) {
        physicalScale = micronsPerPixel / 1000
        physicalUnits = "mm"
    }

    private enum CodingKeys: String, CodingKey {
        case context = "@context"
        case profile, physicalScale, physicalUnits
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("http://iiif.io/api/annex/services/physdim/1/context.json", forKey: .context)
        try container.encode("http://iiif.io/api/annex/services/physdim", forKey: .profile)
        try container.encode(physicalScale, forKey: .physicalScale)
        try container.encode(physicalUnits, forKey: .physicalUnits)
    }
}
