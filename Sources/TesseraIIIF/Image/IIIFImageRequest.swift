public import TesseraCore

/// An IIIF Image API 3.0 image request, `{region}/{size}/{rotation}/{quality}.{format}`, parsed and
/// checked for everything that does not depend on the image: syntax, and ranges such as `w ≥ 1` or
/// `pct:n ≤ 100` without `^`. ``resolved(imageSize:limits:)`` turns it into pixels once the image's
/// size is known.
///
/// Parsing is strict. §4.7: numbers "MUST consist only of decimal digits and '.'". So `+5`, `-1`,
/// `1e3`, `0x10`, spaces and empty numbers are refused, and a pixel count must be a whole number.
/// Every refusal is an ``IIIFRequestError`` that names the parameter.
public struct IIIFImageRequest: Sendable, Hashable, CustomStringConvertible {
    /// The part of the full image that is wanted (§4.1).
    public enum Region: Sendable, Hashable, CustomStringConvertible {
        /// The whole image.
        case full
        /// The largest square the image holds. The spec lets the server place it ("centered is often a
        /// reasonable default"), so it is centred in the longer dimension, and an odd leftover pixel
        /// goes to the right or bottom.
        case square
        /// `x,y,w,h` in pixels of the full-resolution image. That is the space of info.json's `width`
        /// and `height`, so a URL names the same pixels at whatever size it asks for. Parts beyond
        /// the image are clipped off when the request is resolved.
        case pixels(PixelRect)
        /// `pct:x,y,w,h`: percentages of the full image's width (`x`, `width`) and height (`y`,
        /// `height`). They become whole pixels when the request is resolved (see
        /// ``ResolvedIIIFRequest/region`` for the rounding).
        case percent(x: Double, y: Double, width: Double, height: Double)

        /// The region in IIIF syntax (`full`, `125,15,120,140`, `pct:41.6,7.5,40,70`).
        public var description: String {
            switch self {
            case .full: "full"
            case .square: "square"
            case .pixels(let rect): "\(rect.x),\(rect.y),\(rect.width),\(rect.height)"
            case .percent(let x, let y, let width, let height):
                "pct:" + [x, y, width, height].map(IIIFRequestGrammar.decimalString).joined(separator: ",")
            }
        }
    }

    /// How the region is scaled (§4.2). Every size is in pixels of the output, the scaled region
    /// before rotation. `w,` asks for an output `w` pixels wide, however many source pixels the
    /// region spans.
    public struct Size: Sendable, Hashable, CustomStringConvertible {
        /// The form of the size, with its numbers (output pixels, or a percentage).
        public enum Kind: Sendable, Hashable {
            /// The region at full resolution, scaled down only to fit the service's limits.
            case max
            /// This many pixels wide; the height keeps the region's aspect ratio.
            case width(Int)
            /// This many pixels high; the width keeps the region's aspect ratio.
            case height(Int)
            /// This percentage of the region's width and height.
            case percent(Double)
            /// Exactly this width and height, distorting the image if the aspect ratio differs.
            case exact(width: Int, height: Int)
            /// `!w,h`: as large as fits in this box with the region's aspect ratio kept.
            case bestFit(width: Int, height: Int)
        }

        /// Which form, and its numbers.
        public var kind: Kind
        /// The `^` prefix. Without it, the spec forbids an output larger than the region in either
        /// dimension. `^max` is resolved as `max`: Tessera offers no size above the region's own
        /// unless one is asked for explicitly (`^w,`, `^pct:n`…).
        public var allowsUpscaling: Bool

        /// A size of `kind`, with the `^` prefix when `allowsUpscaling`.
        public init(_ kind: Kind, allowsUpscaling: Bool = false) {
            self.kind = kind
            self.allowsUpscaling = allowsUpscaling
        }

        /// `max`: the whole region, never upscaled.
        public static let max = Size(.max)

        /// The size in IIIF syntax (`^!360,360`, `pct:50`, `,150`).
        public var description: String {
            let body: String
            switch kind {
            case .max: body = "max"
            case .width(let width): body = "\(width),"
            case .height(let height): body = ",\(height)"
            case .percent(let percent): body = "pct:" + IIIFRequestGrammar.decimalString(percent)
            case .exact(let width, let height): body = "\(width),\(height)"
            case .bestFit(let width, let height): body = "!\(width),\(height)"
            }
            return (allowsUpscaling ? "^" : "") + body
        }
    }

    /// Mirroring and clockwise rotation (§4.3). Mirroring reflects on the vertical axis and happens
    /// first.
    public struct Rotation: Sendable, Hashable, CustomStringConvertible {
        /// The `!` prefix: reflect on the vertical axis, before rotating.
        public var mirrored: Bool
        /// Clockwise degrees, 0 to 360 inclusive.
        public var degrees: Double

        /// `degrees` clockwise, mirrored first when `mirrored`. Checked when the request is
        /// resolved, not here.
        public init(degrees: Double = 0, mirrored: Bool = false) {
            self.degrees = degrees
            self.mirrored = mirrored
        }

        /// No mirroring, no rotation: `0`.
        public static let none = Rotation()

        /// The rotation in canonical form (§4.8): `!` when mirrored, then the degrees as an integer
        /// when whole, else as a decimal with no trailing zeros and no exponent (`90`, `!22.5`).
        public var description: String {
            (mirrored ? "!" : "") + IIIFRequestGrammar.decimalString(degrees)
        }
    }

    /// The colour quality (§4.4). Tessera's `default` is the image's own colours, the same pixels
    /// as `color`.
    public enum Quality: String, Sendable, CaseIterable {
        /// The image's own colours.
        case `default`
        /// Full colour: the same pixels as `default`.
        case color
        /// Greyscale.
        case gray
        /// Black and white only.
        case bitonal
    }

    /// The formats Tessera produces (§4.5).
    public enum Format: String, Sendable, CaseIterable {
        /// JPEG.
        case jpg
        /// PNG.
        case png
        /// WebP (lossy).
        case webp
        /// AVIF.
        case avif
        /// JPEG XL (not in §4.5's table; offered as an extra format, as AVIF is).
        case jxl

        /// The format values §4.5 defines that Tessera does not produce. They are refused with 400,
        /// not 501, because §4.5 says "A format value that is unsupported SHOULD result in a 400".
        /// The message says this service does not produce the format, not that it is malformed.
        public static let notProduced: Set<String> = ["tif", "gif", "jp2", "pdf"]

        /// The media type of the response body, from §4.5's table.
        public var mediaType: String {
            switch self {
            case .jpg: "image/jpeg"
            case .png: "image/png"
            case .webp: "image/webp"
            case .avif: "image/avif"
            case .jxl: "image/jxl"
            }
        }

        /// The format for a request of `auto` (a Tessera extension, not IIIF's): the best the
        /// client's `Accept` header names — JPEG XL, then AVIF, then WebP, as imgproxy prefers them —
        /// else JPEG, which every client shows.
        /// A type is named when it appears with a q-value above 0 (or none).
        public static func negotiated(accept: [String]) -> Format {
            func trimmed(_ text: Substring) -> String {
                guard let first = text.firstIndex(where: { !$0.isWhitespace }),
                    let last = text.lastIndex(where: { !$0.isWhitespace })
                else { return "" }
                return text[first...last].lowercased()
            }
            let named = Set(
                accept.joined(separator: ",").split(separator: ",").compactMap { item -> String? in
                    let parts = item.split(separator: ";").map(trimmed)
                    guard let type = parts.first, !type.isEmpty else { return nil }
                    let refused = parts.dropFirst().contains { $0.hasPrefix("q=") && (Double($0.dropFirst(2)) ?? 1) <= 0 }
                    return refused ? nil : type
                })
            if named.contains("image/jxl") { return .jxl }
            if named.contains("image/avif") { return .avif }
            if named.contains("image/webp") { return .webp }
            return .jpg
        }
    }

    /// The part of the full image asked for.
    public var region: Region
    /// How large the region is to be in the output.
    public var size: Size
    /// Mirroring and rotation, applied after scaling.
    public var rotation: Rotation
    /// The colour quality.
    public var quality: Quality
    /// The encoding of the output.
    public var format: Format
    /// The request named the format `auto`: ``format`` is to be chosen from the `Accept` header
    /// (``Format/negotiated(accept:)``) before the request is resolved; it is `jpg` until then.
    public var negotiatesFormat = false

    /// A request built in code. It is not checked here: ``resolved(imageSize:limits:)`` checks
    /// every value, so an out-of-range one (`degrees: 400`) fails there with a 400 error.
    public init(
        region: Region = .full, size: Size = .max, rotation: Rotation = .none,
        quality: Quality = .default, format: Format = .jpg
    ) {
        self.region = region
        self.size = size
        self.rotation = rotation
        self.quality = quality
        self.format = format
    }

    /// Parses the four path segments after the identifier, as they come in the URL path, not yet
    /// percent-decoded. Each segment is percent-decoded once (§9: encoding characters outside the
    /// to-encode set "introduces no ambiguity"). So `%5E360,` is `^360,`, `%21` is `!` and `%2C` is
    /// `,`. A malformed escape (`%G1`, a lone `%`) is refused.
    ///
    /// - Throws: ``IIIFRequestError``, always `ErrorCategory/badInput` (400), naming the first
    ///   segment at fault in the order region, size, rotation, quality, format.
    public init(region: String, size: String, rotation: String, qualityAndFormat: String) throws(IIIFRequestError) {
        self.region = try IIIFRequestGrammar.parseRegion(region)
        self.size = try IIIFRequestGrammar.parseSize(size)
        self.rotation = try IIIFRequestGrammar.parseRotation(rotation)
        (quality, format, negotiatesFormat) = try IIIFRequestGrammar.parseQualityAndFormat(qualityAndFormat)
    }

    /// This request cut and scaled for an image of `imageSize` (full-resolution pixels, upright: the
    /// size info.json reports) under `limits`.
    ///
    /// - Throws: ``IIIFRequestError``: `ErrorCategory/badInput` for a region outside the image or
    ///   a size the region cannot give without `^`; `ErrorCategory/tooLarge` for a size over the
    ///   limits; `ErrorCategory/unsupported` for upscaling when `limits` allow none.
    public func resolved(imageSize: PixelSize, limits: IIIFLimits) throws(IIIFRequestError) -> ResolvedIIIFRequest {
        try ResolvedIIIFRequest(resolving: self, imageSize: imageSize, limits: limits)
    }

    /// The request in IIIF syntax as given (not canonical): `region/size/rotation/quality.format`.
    public var description: String {
        "\(region)/\(size)/\(rotation)/\(quality.rawValue).\(negotiatesFormat ? "auto" : format.rawValue)"
    }
}

// MARK: - Checks that need no image

extension IIIFImageRequest.Region {
    /// Refuses values no image could satisfy: negative offsets, an empty width or height, a
    /// percentage that is not a finite number. `value` is what the error quotes.
    func check(value: String) throws(IIIFRequestError) {
        switch self {
        case .full, .square:
            return
        case .pixels(let rect):
            guard rect.x >= 0, rect.y >= 0 else {
                throw IIIFRequestError(.region, value, "must not start at a negative pixel")
            }
            guard rect.width >= 1, rect.height >= 1 else {
                throw IIIFRequestError(.region, value, "must be at least 1 pixel wide and high")
            }
        case .percent(let x, let y, let width, let height):
            guard [x, y, width, height].allSatisfy({ $0.isFinite && $0 >= 0 }) else {
                throw IIIFRequestError(.region, value, "must have percentages that are finite numbers of at least 0")
            }
            guard width > 0, height > 0 else {
                throw IIIFRequestError(.region, value, "must have a width and height of more than 0 percent")
            }
        }
    }
}

extension IIIFImageRequest.Size {
    /// Refuses sizes no region could satisfy: fewer than 1 pixel, 0 percent, or over 100 percent
    /// without `^`. `value` is what the error quotes.
    func check(value: String) throws(IIIFRequestError) {
        switch kind {
        case .max:
            return
        case .width(let side), .height(let side):
            guard side >= 1 else { throw IIIFRequestError(.size, value, "must be at least 1 pixel") }
        case .exact(let width, let height), .bestFit(let width, let height):
            guard width >= 1, height >= 1 else {
                throw IIIFRequestError(.size, value, "must be at least 1 pixel wide and high")
            }
        case .percent(let percent):
            guard percent.isFinite, percent > 0 else {
                throw IIIFRequestError(.size, value, "must be a finite percentage of more than 0")
            }
            guard allowsUpscaling || percent <= 100 else {
                throw IIIFRequestError(.size, value, "is over 100 percent, which needs the ^ prefix to upscale")
            }
        }
    }
}

extension IIIFImageRequest.Rotation {
    /// Refuses angles outside 0…360 (§4.3: "A rotation value that is out of range or unsupported
    /// SHOULD result in a 400"). `value` is what the error quotes.
    func check(value: String) throws(IIIFRequestError) {
        guard degrees.isFinite, degrees >= 0, degrees <= 360 else {
            throw IIIFRequestError(.rotation, value, "must be from 0 to 360 degrees")
        }
    }
}
