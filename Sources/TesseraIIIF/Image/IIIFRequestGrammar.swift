import TesseraCore

/// The Image API's grammar of a request's parameters (§4): each one's text, percent-decoded,
/// read into ``IIIFImageRequest``'s values or refused with the forms it may take; and its decimals
/// written back the way §4.7 asks.
enum IIIFRequestGrammar {
    typealias Region = IIIFImageRequest.Region
    typealias Size = IIIFImageRequest.Size
    typealias Rotation = IIIFImageRequest.Rotation
    typealias Quality = IIIFImageRequest.Quality
    typealias Format = IIIFImageRequest.Format

    private static let regionForms = "must be full, square, x,y,w,h in whole pixels, or pct:x,y,w,h in percent"
    private static let sizeForms = "must be max, w,, ,h, w,h, !w,h or pct:n, each optionally prefixed with ^"
    private static let rotationForms = "must be a number of degrees from 0 to 360, optionally prefixed with ! to mirror"

    static func parseRegion(_ raw: String) throws(IIIFRequestError) -> Region {
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

    static func parseSize(_ raw: String) throws(IIIFRequestError) -> Size {
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

    static func parseRotation(_ raw: String) throws(IIIFRequestError) -> Rotation {
        let text = try decoded(raw, .rotation)
        var body = Substring(text)
        let mirrored = body.removeFirst(ifEqualTo: "!")
        guard let degrees = decimal(body) else { throw IIIFRequestError(.rotation, text, rotationForms) }
        let rotation = Rotation(degrees: degrees, mirrored: mirrored)
        try rotation.check(value: text)
        return rotation
    }

    static func parseQualityAndFormat(_ raw: String) throws(IIIFRequestError) -> (Quality, Format, negotiates: Bool) {
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
                throw IIIFRequestError(.format, formatText, "is not produced by this service, which produces jpg, png, webp, avif and jxl")
            }
            throw IIIFRequestError(.format, formatText, "must be jpg, png, webp, avif, jxl or auto")
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
        let pointOffset =
            mantissa.firstIndex(of: ".").map { mantissa.distance(from: mantissa.startIndex, to: $0) }
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
