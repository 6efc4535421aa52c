public import TesseraCore

/// Why an IIIF image request was refused: the parameter at fault, its value, and why, in one line
/// a server can send to the client as it is (`size "0," must be at least 1 pixel`).
///
/// The category says which HTTP status fits, following IIIF Image API 3.0:
/// - `ErrorCategory/badInput`: 400. Malformed syntax or a value out of range (§4.1–§4.5; §4.5 asks for
///   400 even for a real IIIF format this service does not produce, such as `tif`).
/// - `ErrorCategory/tooLarge`: 400 as well. The size is over `maxWidth`, `maxHeight` or `maxArea`.
///   §4.2: sizes "greater than the server-imposed limits … SHOULD result in a 400". The message names
///   the limit.
/// - `ErrorCategory/unsupported`: 501. A `^` size that needs upscaling when the limits give no
///   `maxWidth` or `maxArea`. §5.7 requires a service that upscales to publish one of them, and §4.2
///   says such requests "SHOULD result in a 501 (Not Implemented)".
///
/// The description never contains a file path: requests carry none.
public struct IIIFRequestError: TesseraError, Equatable {
    /// A path segment of the image request, named as the spec names it.
    public enum Parameter: String, Sendable, Hashable, CaseIterable {
        /// `{region}`.
        case region
        /// `{size}`.
        case size
        /// `{rotation}`.
        case rotation
        /// `{quality}`, before the dot.
        case quality
        /// `{format}`, after the dot.
        case format
    }

    /// The parameter at fault.
    public var parameter: Parameter
    /// The value as the client wrote it (still percent-encoded). For an error found when the request
    /// is resolved against an image, it is the parsed value written back in IIIF syntax.
    public var value: String
    /// Why the value is refused, and what would be accepted. It finishes the sentence
    /// `parameter "value" …`.
    public var reason: String
    public var category: ErrorCategory

    /// `parameter`'s `value` refused for `reason` (a 400 unless `category` says otherwise: a
    /// size over the limits is `tooLarge`, upscaling with no limit published `unsupported`).
    public init(_ parameter: Parameter, _ value: String, _ reason: String, category: ErrorCategory = .badInput) {
        self.parameter = parameter
        self.value = value
        self.reason = reason
        self.category = category
    }

    /// The longest part of a value quoted in ``description``. A hostile URL can be kilobytes long,
    /// and an error line does not need all of it.
    static let quotedValueLimit = 100

    public var description: String {
        var quoted = String(value.prefix(Self.quotedValueLimit))
        if quoted.count < value.count { quoted += "…" }
        return oneLine("\(parameter.rawValue) \"\(quoted)\" \(reason)")
    }
}
