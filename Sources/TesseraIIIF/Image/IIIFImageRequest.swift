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
                "pct:" + [x, y, width, height].map(IIIFImageRequest.decimalString).joined(separator: ",")
            }
        }
    }

    /// How the region is scaled (§4.2). Every size is in pixels of the output, the scaled region
    /// before rotation. `w,` asks for an output `w` pixels wide, however many source pixels the
    /// region spans.
    public struct Size: Sendable, Hashable, CustomStringConvertible {
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

        public var kind: Kind
        /// The `^` prefix. Without it, the spec forbids an output larger than the region in either
        /// dimension. `^max` is resolved as `max`: Tessera offers no size above the region's own
        /// unless one is asked for explicitly (`^w,`, `^pct:n`…).
        public var allowsUpscaling: Bool

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
            case .percent(let percent): body = "pct:" + IIIFImageRequest.decimalString(percent)
            case .exact(let width, let height): body = "\(width),\(height)"
            case .bestFit(let width, let height): body = "!\(width),\(height)"
            }
            return (allowsUpscaling ? "^" : "") + body
        }
    }

    /// Mirroring and clockwise rotation (§4.3). Mirroring reflects on the vertical axis and happens
    /// first.
    public struct Rotation: Sendable, Hashable, CustomStringConvertible {
        public var mirrored: Bool
        /// Clockwise degrees, 0 to 360 inclusive.
        public var degrees: Double

        public init(degrees: Double = 0, mirrored: Bool = false) {
            self.degrees = degrees
            self.mirrored = mirrored
        }

        /// No mirroring, no rotation: `0`.
        public static let none = Rotation()

        /// The rotation in canonical form (§4.8): `!` when mirrored, then the degrees as an integer
        /// when whole, else as a decimal with no trailing zeros and no exponent (`90`, `!22.5`).
        public var description: String {
            (mirrored ? "!" : "") + IIIFImageRequest.decimalString(degrees)
        }
    }

    /// The colour quality (§4.4). Tessera's `default` is the image's own colours, the same pixels
    /// as `color`.
    public enum Quality: String, Sendable, CaseIterable {
        case `default`, color, gray, bitonal
    }

    /// The formats Tessera produces (§4.5).
    public enum Format: String, Sendable, CaseIterable {
        case jpg, png, webp, avif

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
            }
        }

        /// The format for a request of `auto` (a Tessera extension, not IIIF's): the best the
        /// client's `Accept` header names — AVIF, then WebP — else JPEG, which every client shows.
        /// A type is named when it appears with a q-value above 0 (or none).
        public static func negotiated(accept: [String]) -> Format {
            func trimmed(_ text: Substring) -> String {
                guard let first = text.firstIndex(where: { !$0.isWhitespace }),
                      let last = text.lastIndex(where: { !$0.isWhitespace }) else { return "" }
                return text[first...last].lowercased()
            }
            let named = Set(accept.joined(separator: ",").split(separator: ",").compactMap { item -> String? in
                let parts = item.split(separator: ";").map(trimmed)
                guard let type = parts.first, !type.isEmpty else { return nil }
                let refused = parts.dropFirst().contains { $0.hasPrefix("q=") && (Double($0.dropFirst(2)) ?? 1) <= 0 }
                return refused ? nil : type
            })
            if named.contains("image/avif") { return .avif }
            if named.contains("image/webp") { return .webp }
            return .jpg
        }
    }

    public var region: Region
    public var size: Size
    public var rotation: Rotation
    public var quality: Quality
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
    /// - Throws: ``IIIFRequestError``, always ``ErrorCategory/badInput`` (400), naming the first
    ///   segment at fault in the order region, size, rotation, quality, format.
    public init(region: String, size: String, rotation: String, qualityAndFormat: String) throws(IIIFRequestError) {
        self.region = try Self.parseRegion(region)
        self.size = try Self.parseSize(size)
        self.rotation = try Self.parseRotation(rotation)
        (quality, format, negotiatesFormat) = try Self.parseQualityAndFormat(qualityAndFormat)
    }

    /// This request cut and scaled for an image of `imageSize` (full-resolution pixels, upright: the
    /// size info.json reports) under `limits`.
    ///
    /// - Throws: ``IIIFRequestError``: ``ErrorCategory/badInput`` for a region outside the image or
    ///   a size the region cannot give without `^`; ``ErrorCategory/tooLarge`` for a size over the
    ///   limits; ``ErrorCategory/unsupported`` for upscaling when `limits` allow none.
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

// MARK: - Parsing

extension IIIFImageRequest {
    private static let regionForms = "must be full, square, x,y,w,h in whole pixels, or pct:x,y,w,h in percent"
    private static let sizeForms = "must be max, w,, ,h, w,h, !w,h or pct:n, each optionally prefixed with ^"
    private static let rotationForms = "must be a number of degrees from 0 to 360, optionally prefixed with ! to mirror"

    private static func parseRegion(_ raw: String) throws(IIIFRequestError) -> Region {
        let text = try decoded(raw, .region)
        switch text {
        case "full": return .full
        case "square": return .square
        default: break
        }
        let region: Region
        if text.hasPrefix("pct:") {
            let parts = text.dropFirst(4).split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count == 4 else { throw IIIFRequestError(.region, text, regionForms) }
            var values: [Double] = []
            for part in parts {
                guard let value = decimal(part) else { throw IIIFRequestError(.region, text, regionForms) }
                values.append(value)
            }
            region = .percent(x: values[0], y: values[1], width: values[2], height: values[3])
        } else {
            let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count == 4 else { throw IIIFRequestError(.region, text, regionForms) }
            var values: [Int] = []
            for part in parts {
                values.append(try pixelCount(part, .region, text, forms: regionForms))
            }
            region = .pixels(PixelRect(x: values[0], y: values[1], width: values[2], height: values[3]))
        }
        try region.check(value: text)
        return region
    }

    private static func parseSize(_ raw: String) throws(IIIFRequestError) -> Size {
        let text = try decoded(raw, .size)
        var body = Substring(text)
        let upscaling = body.removeFirst(ifEqualTo: "^")
        let kind: Size.Kind
        if body == "max" {
            kind = .max
        } else if body == "full" {
            throw IIIFRequestError(.size, text, "is the Image API 2 form; version 3 writes max")
        } else if body.hasPrefix("pct:") {
            guard let percent = decimal(body.dropFirst(4)) else { throw IIIFRequestError(.size, text, sizeForms) }
            kind = .percent(percent)
        } else {
            let confined = body.removeFirst(ifEqualTo: "!")
            let parts = body.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count == 2 else { throw IIIFRequestError(.size, text, sizeForms) }
            switch (parts[0].isEmpty, parts[1].isEmpty, confined) {
            case (false, false, true):
                kind = .bestFit(
                    width: try pixelCount(parts[0], .size, text, forms: sizeForms),
                    height: try pixelCount(parts[1], .size, text, forms: sizeForms))
            case (false, false, false):
                kind = .exact(
                    width: try pixelCount(parts[0], .size, text, forms: sizeForms),
                    height: try pixelCount(parts[1], .size, text, forms: sizeForms))
            case (false, true, false):
                kind = .width(try pixelCount(parts[0], .size, text, forms: sizeForms))
            case (true, false, false):
                kind = .height(try pixelCount(parts[1], .size, text, forms: sizeForms))
            default:
                throw IIIFRequestError(.size, text, sizeForms)
            }
        }
        let size = Size(kind, allowsUpscaling: upscaling)
        try size.check(value: text)
        return size
    }

    private static func parseRotation(_ raw: String) throws(IIIFRequestError) -> Rotation {
        let text = try decoded(raw, .rotation)
        var body = Substring(text)
        let mirrored = body.removeFirst(ifEqualTo: "!")
        guard let degrees = decimal(body) else { throw IIIFRequestError(.rotation, text, rotationForms) }
        let rotation = Rotation(degrees: degrees, mirrored: mirrored)
        try rotation.check(value: text)
        return rotation
    }

    private static func parseQualityAndFormat(_ raw: String) throws(IIIFRequestError) -> (Quality, Format, negotiates: Bool) {
        let text = try decoded(raw, .format)
        guard let dot = text.lastIndex(of: ".") else {
            throw IIIFRequestError(.format, text, "is missing: the last segment must be quality.format, such as default.jpg")
        }
        let qualityText = String(text[..<dot]), formatText = String(text[text.index(after: dot)...])
        guard let quality = Quality(rawValue: qualityText) else {
            throw IIIFRequestError(.quality, qualityText, "must be default, color, gray or bitonal")
        }
        if formatText == "auto" { return (quality, .jpg, true) }
        guard let format = Format(rawValue: formatText) else {
            if Format.notProduced.contains(formatText) {
                throw IIIFRequestError(.format, formatText, "is not produced by this service, which produces jpg, png, webp and avif")
            }
            throw IIIFRequestError(.format, formatText, "must be jpg, png, webp, avif or auto")
        }
        return (quality, format, false)
    }

    /// `raw` with its percent-escapes decoded, once. A malformed escape is refused; decoded bytes
    /// that are not UTF-8 become U+FFFD, which no parameter accepts.
    private static func decoded(_ raw: String, _ parameter: IIIFRequestError.Parameter) throws(IIIFRequestError) -> String {
        guard raw.utf8.contains(UInt8(ascii: "%")) else { return raw }
        guard let decoded = PercentEncoding.decode(raw) else {
            throw IIIFRequestError(parameter, raw, "has a malformed percent-escape (% must be followed by two hex digits) or is not UTF-8")
        }
        return decoded
    }

    private static func isDecimalDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    /// A pixel count: decimal digits only. A sign, a point, hex, spaces or an empty text give the
    /// form error `forms`. A number too large for `Int` gets its own message.
    private static func pixelCount(
        _ text: Substring, _ parameter: IIIFRequestError.Parameter, _ value: String, forms: String
    ) throws(IIIFRequestError) -> Int {
        guard !text.isEmpty, text.utf8.allSatisfy(isDecimalDigit) else { throw IIIFRequestError(parameter, value, forms) }
        guard let count = Int(text) else {
            throw IIIFRequestError(parameter, value, "has a number too large to be a pixel count")
        }
        return count
    }

    /// A §4.7 floating-point value: decimal digits and at most one `.`, with at least one digit.
    /// `.5` and `5.` are accepted, since the spec only says a leading 0 SHOULD be written. A number
    /// too long for `Double` is infinite, so the range checks refuse it.
    private static func decimal(_ text: Substring) -> Double? {
        var digits = 0, points = 0
        for byte in text.utf8 {
            if isDecimalDigit(byte) {
                digits += 1
            } else if byte == UInt8(ascii: ".") {
                points += 1
            } else {
                return nil
            }
        }
        guard digits > 0, points <= 1 else { return nil }
        return Double(text)
    }

    /// `value` as a plain decimal, the way §4.7 asks floating-point values to be written: an integer
    /// when whole, otherwise the shortest digits that give the value back, with no trailing zeros
    /// and no exponent (`22.5`, `0.0000001`, not `1e-07`).
    static func decimalString(_ value: Double) -> String {
        guard value.isFinite else { return "\(value)" }
        if value == value.rounded(), abs(value) < 0x1p53 { return String(Int(value)) }
        let shortest = "\(value)"  // Swift prints the shortest round-tripping digits
        guard let exponentIndex = shortest.firstIndex(where: { $0 == "e" || $0 == "E" }),
            let exponent = Int(shortest[shortest.index(after: exponentIndex)...])
        else { return shortest }
        var mantissa = shortest[..<exponentIndex]
        let sign = mantissa.first == "-" ? "-" : ""
        if !sign.isEmpty { mantissa = mantissa.dropFirst() }
        let pointOffset = mantissa.firstIndex(of: ".").map { mantissa.distance(from: mantissa.startIndex, to: $0) }
            ?? mantissa.count
        let digits = Array(mantissa.filter { $0 != "." })
        let newPoint = pointOffset + exponent
        var text: String
        if newPoint <= 0 {
            text = "0." + String(repeating: "0", count: -newPoint) + String(digits)
        } else if newPoint >= digits.count {
            text = String(digits) + String(repeating: "0", count: newPoint - digits.count)
        } else {
            text = String(digits[..<newPoint]) + "." + String(digits[newPoint...])
        }
        if text.contains(".") {
            while text.last == "0" { text.removeLast() }
            if text.last == "." { text.removeLast() }
        }
        return sign + text
    }
}

private extension Substring {
    /// Drops the first character when it is `prefix` (IIIF's `^` and `!` markers); says whether it did.
    mutating func removeFirst(ifEqualTo prefix: Character) -> Bool {
        guard first == prefix else { return false }
        removeFirst()
        return true
    }
}
