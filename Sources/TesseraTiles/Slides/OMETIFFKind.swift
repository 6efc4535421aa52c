public import TesseraCodecs
import TesseraCore

/// OME-TIFF, the Open Microscopy Environment's TIFF (Bio-Formats' `bfconvert`, QuPath's export,
/// `tifffile`): an OME-XML ImageDescription on the first image, which is the first plane of the
/// first image series at full resolution, with its reduced levels (any whole factor) in its SubIFDs.
/// Read as a ``TIFFPyramidSource`` (stored JPEG tiles passed through), its scale the first `Pixels`
/// element's `PhysicalSizeX`, a microscope's. The file's other series and planes (channels, focal
/// planes, times) are its pages, decoded as any TIFF's.
public struct OMETIFFKind: RegionSourceKind {
    public let readers: TIFFReaderPool
    public var name: String { "ome-tiff" }

    public init(readers: TIFFReaderPool) { self.readers = readers }

    public func open(_ input: RegionSourceInput, header: () throws -> ImageProperties) throws -> (any RegionSource)? {
        guard let path = input.input.filePath, input.options.pageIndex == 0, case let properties = try header(), properties.format == .tiff
        else { return nil }
        // The first image's tags alone: the description says whether the file is OME's.
        let first = try TIFFDirectorySummary.directories(ofFileAt: path, options: input.options) { _ in false }.first
        guard let description = first.flatMap({ OMEDescription($0.description) }) else { return nil }
        return try TIFFPyramidSource(
            path: path, identity: input.identity, properties: properties, micronsPerPixel: description.micronsPerPixel,
            options: input.options, readers: readers)
    }
}

/// What an OME-XML ImageDescription says of the first image: `<OME xmlns="http://www.openmicroscopy.org/Schemas/OME/2016-06">
/// <Image ID="Image:0"><Pixels PhysicalSizeX="0.25" PhysicalSizeXUnit="µm" …>`.
struct OMEDescription: Equatable {
    /// The first `Pixels` element's attributes, names as written (the first of a name wins).
    let pixelAttributes: [String: String]

    /// Nil when `text` is not OME-XML.
    init?(_ text: String) {
        guard text.contains("openmicroscopy.org/Schemas/OME/"), let pixels = Self.startTag(named: "Pixels", in: Substring(text)) else {
            return nil
        }
        pixelAttributes = Self.attributes(of: pixels)
    }

    /// `PhysicalSizeX` in micrometres (its unit `PhysicalSizeXUnit`, µm when absent), when it is a
    /// positive, finite length in a unit of the metric system.
    var micronsPerPixel: Double? {
        guard let size = pixelAttributes["PhysicalSizeX"].flatMap(Double.init), size.isFinite, size > 0,
            let micrometres = Self.micrometres[pixelAttributes["PhysicalSizeXUnit"] ?? "µm"]
        else { return nil }
        let microns = size * micrometres
        return microns.isFinite && microns > 0 ? microns : nil
    }

    /// Micrometres in each of OME's units of length a microscope's pixel is given in (µm written
    /// with the micro sign or the Greek mu).
    private static let micrometres: [String: Double] = [
        "m": 1e6, "cm": 1e4, "mm": 1e3, "µm": 1, "μm": 1, "um": 1, "nm": 1e-3, "pm": 1e-6, "Å": 1e-4,
    ]

    /// The attributes' text of the first start tag whose local name is `name` (`<Pixels …>` or
    /// `<ome:Pixels …>`), up to its `>`.
    private static func startTag(named name: String, in text: Substring) -> Substring? {
        var rest = text
        while let open = rest.firstIndex(of: "<") {
            rest = rest[rest.index(after: open)...]
            let tagName = rest.prefix { !$0.isWhitespace && $0 != ">" && $0 != "/" }
            guard tagName.split(separator: ":").last.map(String.init) == name else { continue }
            return rest[tagName.endIndex...].prefix { $0 != ">" }
        }
        return nil
    }

    /// `name="value"` pairs (either quote) of a start tag's text, as written (entities left alone:
    /// numbers and units have none).
    private static func attributes(of tag: Substring) -> [String: String] {
        var attributes: [String: String] = [:]
        var rest = tag
        while let equals = rest.firstIndex(of: "=") {
            let name = String(rest[..<equals].split(whereSeparator: \.isWhitespace).last ?? "")
            let afterEquals = rest[rest.index(after: equals)...].drop { $0.isWhitespace }
            guard let quote = afterEquals.first, quote == "\"" || quote == "'" else { break }
            let value = afterEquals.dropFirst().prefix { $0 != quote }
            if attributes[name] == nil { attributes[name] = String(value) }
            rest = afterEquals.dropFirst(value.count + 2)
        }
        return attributes
    }
}
