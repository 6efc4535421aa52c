public import TesseraCore

/// The image information document (`info.json`, IIIF Image API 3.0 §5) of a level 2 service:
/// what viewers read before asking for tiles.
///
/// ``json()`` writes the keys in a fixed order: `@context` first, as §5.2 asks, then `id`, `type`,
/// `protocol`, `profile`, `width`, `height`, the limits that are set, `sizes`, `tiles`,
/// `extraFormats`, `extraQualities`, `extraFeatures`, `partOf`, `service`. An empty list is left out.
public struct IIIFImageInfo: Sendable, Hashable {
    /// One entry of `tiles` (§5.4): tiles `width` × `height` output pixels, offered at each of
    /// `scaleFactors`. A tile at scale factor `s` covers `width·s` × `height·s` full-resolution
    /// pixels. The factors are whole numbers the full image is divided by.
    public struct Tile: Sendable, Hashable {
        /// A tile's width in output pixels.
        public var width: Int
        /// A tile's height in output pixels (`width` when the tiles are square).
        public var height: Int
        /// The reductions the tiles are offered at, finest first: `[1, 2, 4, …]`.
        public var scaleFactors: [Int]

        /// Tiles of `width` × `height` output pixels at each of `scaleFactors`.
        public init(width: Int, height: Int, scaleFactors: [Int]) {
            self.width = width
            self.height = height
            self.scaleFactors = scaleFactors
        }
    }

    /// The service's base URI (scheme, server, prefix and the percent-encoded identifier, with no
    /// trailing slash). It is written with full JSON escaping, so any identifier is safe in it.
    public var id: String
    /// The full image's width in full-resolution pixels: the space `x,y,w,h` regions are in.
    public var width: Int
    /// The full image's height in full-resolution pixels.
    public var height: Int
    /// Preferred whole-image sizes (§5.3), in output pixels, requested as `full/w,h/0/…`. §5.2
    /// says the service "MUST ensure that sizes specified by any sizes or tiles properties are
    /// within any size limits expressed". The caller lists only sizes within ``limits``.
    public var sizes: [PixelSize]
    /// The tiles a viewer should ask for (§5.4): requests for them are answered fastest.
    public var tiles: [Tile]
    /// `maxWidth`, `maxHeight` and `maxArea`, written when set.
    public var limits: IIIFLimits
    /// Formats offered beyond the level 2 profile's `jpg` and `png`.
    public var extraFormats: [String]
    /// Qualities offered beyond `default`, the only quality the level 2 profile document lists.
    /// §4.4: "services that make additional qualities beyond default available MUST list those
    /// qualities in the extraQualities property".
    public var extraQualities: [String]
    /// Features offered beyond the level 2 profile's (§5.7's feature names).
    public var extraFeatures: [String]
    /// The resources that use this image (§5.8 `partOf`): the manifest that shows it.
    public var partOf: [ResourceReference] = []
    /// Services of the image (§5.8 `service`): the IIIF Authorization Flow's probe service of an
    /// image not everyone may see whole.
    public var service: [IIIFAuthService] = []
    /// The physical size of a pixel (the Services Annex's `physdim`, listed in `service`), for a
    /// source whose metadata gives it (a slide's µm per pixel).
    public var physicalDimensions: PhysicalDimensionsService?

    /// Formats Tessera produces beyond level 2's: `webp`.
    public static let defaultExtraFormats = ["webp", "avif", "jxl"]

    /// Qualities Tessera produces beyond `default`: `color`, `gray` and `bitonal`. §4.4 says a
    /// service "SHOULD NOT include color" for an image that has no colour, so a host serving a
    /// grayscale source can pass a list without it.
    public static let defaultExtraQualities = ["color", "gray", "bitonal"]

    /// The features Tessera's server offers beyond the level 2 profile, which already implies
    /// `baseUriRedirect`, `cors`, `jsonldMediaType`, the region and size forms and `rotationBy90s`:
    /// `mirroring`, `rotationArbitrary`, `profileLinkHeader` and `canonicalLinkHeader`, plus
    /// `sizeUpscaling` when `limits` allow upscaling (§5.7 only allows it when there is a
    /// `maxWidth` or `maxArea`).
    public static func defaultExtraFeatures(for limits: IIIFLimits) -> [String] {
        ["mirroring", "rotationArbitrary"] + (limits.allowsUpscaling ? ["sizeUpscaling"] : [])
            + ["profileLinkHeader", "canonicalLinkHeader"]
    }

    /// - Parameters:
    ///   - id: the service's base URI (``id``).
    ///   - size: the full image's size in full-resolution pixels, upright (what requests are
    ///     resolved against).
    ///   - tiles: the tiles to offer (``tiles``).
    ///   - sizes: preferred whole-image sizes (``sizes``), within `limits`.
    ///   - limits: `maxWidth`, `maxHeight` and `maxArea` to publish.
    ///   - extraFormats: formats beyond `jpg` and `png` (``extraFormats``).
    ///   - extraQualities: qualities beyond `default` (``extraQualities``).
    ///   - extraFeatures: nil for ``defaultExtraFeatures(for:)`` of `limits`.
    public init(
        id: String, size: PixelSize, tiles: [Tile] = [], sizes: [PixelSize] = [], limits: IIIFLimits = .none,
        extraFormats: [String] = Self.defaultExtraFormats, extraQualities: [String] = Self.defaultExtraQualities,
        extraFeatures: [String]? = nil
    ) {
        self.id = id
        width = size.width
        height = size.height
        self.tiles = tiles
        self.sizes = sizes
        self.limits = limits
        self.extraFormats = extraFormats
        self.extraQualities = extraQualities
        self.extraFeatures = extraFeatures ?? Self.defaultExtraFeatures(for: limits)
    }

    /// The info.json text: one JSON object, two-space indented, ending in a newline.
    public func json() -> String {
        var members: [String] = [
            "\"@context\": \"http://iiif.io/api/image/3/context.json\"",
            "\"id\": \(Self.jsonString(id))",
            "\"type\": \"ImageService3\"",
            "\"protocol\": \"http://iiif.io/api/image\"",
            "\"profile\": \"level2\"",
            "\"width\": \(width)",
            "\"height\": \(height)",
        ]
        // §5.2: "maxWidth MUST be specified if maxHeight is specified". A height-only limit gets the
        // width this service holds requests to anyway.
        if let maxWidth = limits.maxWidth ?? limits.maxHeight.map({ _ in IIIFLimits.largestSide }) {
            members.append("\"maxWidth\": \(maxWidth)")
        }
        if let maxHeight = limits.maxHeight { members.append("\"maxHeight\": \(maxHeight)") }
        if let maxArea = limits.maxArea { members.append("\"maxArea\": \(maxArea)") }
        if !sizes.isEmpty {
            let items = sizes.map { "    {\"width\": \($0.width), \"height\": \($0.height)}" }
            members.append("\"sizes\": [\n" + items.joined(separator: ",\n") + "\n  ]")
        }
        if !tiles.isEmpty {
            let items = tiles.map { tile in
                let factors = tile.scaleFactors.map(String.init).joined(separator: ", ")
                return "    {\"width\": \(tile.width), \"height\": \(tile.height), \"scaleFactors\": [\(factors)]}"
            }
            members.append("\"tiles\": [\n" + items.joined(separator: ",\n") + "\n  ]")
        }
        for (key, list) in [("extraFormats", extraFormats), ("extraQualities", extraQualities), ("extraFeatures", extraFeatures)]
        where !list.isEmpty {
            members.append("\"\(key)\": [" + list.map(Self.jsonString).joined(separator: ", ") + "]")
        }
        if !partOf.isEmpty {
            members.append("\"partOf\": [" + partOf.map(PresentationJSON.compact).joined(separator: ", ") + "]")
        }
        let services = service.map(PresentationJSON.compact) + (physicalDimensions.map { [PresentationJSON.compact($0)] } ?? [])
        if !services.isEmpty {
            members.append("\"service\": [" + services.joined(separator: ", ") + "]")
        }
        return "{\n" + members.map { "  " + $0 }.joined(separator: ",\n") + "\n}\n"
    }

    /// The description given to a requester who may not see the image: the service's identity and
    /// its IIIF Authorization Flow services, nothing about the image (no size), so a client can
    /// offer to log in. Sent with status 401 or 403.
    ///
    /// - Parameters:
    ///   - id: the service's base URI.
    ///   - service: the probe service.
    public static func withheld(id: String, service: IIIFAuthService) -> String {
        "{\n  \"@context\": \"http://iiif.io/api/image/3/context.json\",\n  \"id\": \(jsonString(id)),\n  \"type\": \"ImageService3\",\n"
            + "  \"protocol\": \"http://iiif.io/api/image\",\n  \"profile\": \"level2\",\n  \"service\": [\(PresentationJSON.compact(service))]\n}\n"
    }

    /// `text` as a JSON string literal (RFC 8259 §7): quote, backslash and control characters
    /// escaped, plus U+2028 and U+2029, which JSON allows raw but JavaScript string literals did
    /// not (so the document can also be pasted into a script).
    package static func jsonString(_ text: String) -> String {
        var escaped = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            case "\u{08}": escaped += "\\b"
            case "\u{0C}": escaped += "\\f"
            case "\u{00}"..."\u{1F}", "\u{7F}", "\u{2028}", "\u{2029}":
                let hex = String(scalar.value, radix: 16, uppercase: true)
                escaped += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped + "\""
    }
}
