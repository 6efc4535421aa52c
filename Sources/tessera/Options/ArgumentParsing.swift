import ArgumentParser
import FoundationEssentials
import Tessera

/// The one parser for each kind of value the commands take. Each throws a `ValidationError` that
/// says the accepted form and range; ArgumentParser puts the option's name and the value in front,
/// and `TesseraCommand.main` prints it as one line with exit status 64.
enum Parse {
    /// A duration in whole seconds: `90`, `90s`, `15m`, `1h` or `7d`, from 1 s to a year.
    static func duration(_ text: String) throws -> Int {
        let units: [Character: Int] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        let unit = text.last.flatMap { units[$0] }
        guard let count = Int(unit == nil ? text : String(text.dropLast())), count > 0,
            case let seconds = count.multipliedReportingOverflow(by: unit ?? 1), !seconds.overflow, seconds.partialValue <= 366 * 86_400
        else { throw ValidationError("expected a duration such as 3600, 15m, 1h or 7d (at most a year), not \(text)") }
        return seconds.partialValue
    }

    /// A rate per second: `10`, `10/s` or `0.5/s`, more than 0.
    static func rate(_ text: String) throws -> Double {
        let count = text.hasSuffix("/s") ? String(text.dropLast(2)) : text
        guard let value = Double(count), value.isFinite, value > 0 else {
            throw ValidationError("expected a rate per second such as 10 or 10/s, not \(text)")
        }
        return value
    }

    /// A whole number ≥ `minimum` (and ≤ `maximum`).
    static func integer(_ minimum: Int, _ maximum: Int = .max) -> @Sendable (String) throws -> Int {
        { text in
            guard let value = Int(text), value >= minimum, value <= maximum else {
                throw ValidationError(
                    maximum == .max
                        ? "must be a whole number ≥ \(minimum)"
                        : "must be a whole number from \(minimum) to \(maximum)")
            }
            return value
        }
    }

    /// A finite number > `exclusiveMinimum`.
    static func number(greaterThan exclusiveMinimum: Double) -> @Sendable (String) throws -> Double {
        { text in
            guard let value = Double(text), value.isFinite, value > exclusiveMinimum else {
                throw ValidationError("must be a finite number > \(Self.format(exclusiveMinimum))")
            }
            return value
        }
    }

    /// A finite number ≥ `minimum`.
    static func number(atLeast minimum: Double) -> @Sendable (String) throws -> Double {
        { text in
            guard let value = Double(text), value.isFinite, value >= minimum else {
                throw ValidationError("must be a finite number ≥ \(Self.format(minimum))")
            }
            return value
        }
    }

    /// A number from 0 to 1.
    static func fraction(_ text: String) throws -> Double {
        guard let value = Double(text), value >= 0, value <= 1 else { throw ValidationError("must be a number from 0 to 1") }
        return value
    }

    /// Any finite number.
    static func finite(_ text: String) throws -> Double {
        guard let value = Double(text), value.isFinite else { throw ValidationError("must be a finite number") }
        return value
    }

    /// JPEG or WebP quality, 1–100.
    static let quality = integer(1, 100)

    /// Screen pixels per point: finite, > 0.
    static func scale(_ text: String) throws -> DisplayScale {
        guard let value = Double(text), let scale = try? DisplayScale(validating: value) else {
            throw ValidationError("must be a finite number > 0 (1, 2, 3 …)")
        }
        return scale
    }

    /// `WxH` in whole pixels, each ≥ 1.
    static func pixelSize(_ text: String) throws -> PixelSize {
        guard let (first, second) = pair(text, separator: "x"), let width = Int(first), let height = Int(second),
            width >= 1, height >= 1
        else { throw ValidationError("must be WxH in whole pixels ≥ 1, e.g. 300x200") }
        return PixelSize(width: width, height: height)
    }

    /// `WxH` in points, each finite and > 0.
    static func pointSize(_ text: String) throws -> PointSize {
        guard let (first, second) = pair(text, separator: "x"), let width = Double(first), let height = Double(second),
            width > 0, height > 0, width.isFinite, height.isFinite
        else { throw ValidationError("must be WxH in points > 0, e.g. 390x844") }
        return PointSize(width: width, height: height)
    }

    /// `X,Y` in full-resolution pixels, finite.
    static func pixelPoint(_ text: String) throws -> PixelPoint {
        guard let (first, second) = pair(text, separator: ","), let x = Double(first), let y = Double(second),
            x.isFinite, y.isFinite
        else { throw ValidationError("must be X,Y in pixels, e.g. 1200,800") }
        return PixelPoint(x: x, y: y)
    }

    /// An output format by name: jpeg (jpg), png, webp, gif, avif, heic (heif), jp2 (j2k) or jxl.
    static func formatName(_ text: String) throws -> String {
        guard let format = EncodingFormat(formatName: text) else { throw ValidationError("must be jpeg, png, webp, gif, avif, heic, jp2 or jxl") }
        return format.fileExtension
    }

    /// An http(s) or file URL; anything without a scheme is a path.
    static func url(_ text: String) throws -> URL {
        if text.contains("://") {
            guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https", "file"].contains(scheme),
                scheme == "file" || url.host != nil
            else { throw ValidationError("must be an http, https or file URL, or a path") }
            return url
        }
        return URL(fileURLWithPath: text)
    }

    /// An http or https URL, as written.
    static func httpURL(_ text: String) throws -> String {
        guard isRemote(text), let url = URL(string: text), url.host != nil else {
            throw ValidationError("must be an http or https URL")
        }
        return text
    }

    /// A path to serve under: `/images` (a trailing `/` dropped; `/` alone is the root, ""), made of
    /// segments of ASCII letters, digits and `-._~` only, so it is written into URLs and pages as is.
    static func basePath(_ text: String) throws -> String {
        let trimmed = text.hasSuffix("/") ? String(text.dropLast()) : text
        let segments = trimmed.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/")
        guard text.hasPrefix("/"), trimmed.allSatisfy(allowed.contains),
            !segments.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." })
        else { throw ValidationError("must be a path such as /images: segments of letters, digits and -._~") }
        return trimmed
    }

    /// True for an http(s) URL, which is loaded rather than opened.
    static func isRemote(_ text: String) -> Bool {
        let lowered = text.lowercased()
        return lowered.hasPrefix("http://") || lowered.hasPrefix("https://")
    }

    private static func pair(_ text: String, separator: Character) -> (Substring, Substring)? {
        let parts = text.lowercased().split(separator: separator, omittingEmptySubsequences: false)
        return parts.count == 2 ? (parts[0], parts[1]) : nil
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
