import FoundationEssentials

/// What kind of failure an error is, in the one vocabulary every host maps from: the CLI to an
/// exit status, the server to an HTTP status. Stable: hosts and scripts rely on the raw values.
public enum ErrorCategory: String, Sendable, Codable, CaseIterable {
    /// A request or option that is malformed or out of range (a scale of 0, a time outside the video).
    case badInput
    /// The file, object or URL does not exist.
    case notFound
    /// Valid input using a format, codec or feature Tessera does not handle.
    case unsupported
    /// Over a pixel, byte or size limit, named in the message.
    case tooLarge
    /// The input ends before its own structure does.
    case truncated
    /// The input breaks its format's rules.
    case corrupt
    /// A system library Tessera loads on first use (libheif, librsvg, libtiff, ffmpeg's) is missing.
    case libraryUnavailable
    /// The work was cancelled before it finished; nothing was left behind.
    case cancelled
    /// Reading or writing failed for a reason of the system's (permissions, a full disk).
    case io
    /// A remote source failed: connection, timeout or an HTTP error status.
    case network
    /// Too much work is queued already; the same request may succeed later.
    case busy
    /// A library failed in a way no input should cause.
    case `internal`
}

/// The protocol every public Tessera error conforms to: a stable ``category`` for hosts to map,
/// and a `description` that is one line naming the value or part of the file at fault.
///
/// The description never contains the input's path, so a server may show it to a client; hosts
/// that know the path (the CLI) put it in front.
public protocol TesseraError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is; hosts map it to an exit or HTTP status.
    var category: ErrorCategory { get }
}

extension ErrorCategory {
    /// The category of any error: a ``TesseraError``'s own, ``cancelled`` for Swift's
    /// `CancellationError`, ``io`` (or ``notFound``) for the file system's errors as Foundation
    /// reports them (a pyramid's output directory that is a file), ``internal`` for anything else.
    public init(of error: any Error) {
        switch error {
        case let error as any TesseraError: self = error.category
        case is CancellationError: self = .cancelled
        case let error as CocoaError where error.isFileError:
            self = error.code == .fileNoSuchFile || error.code == .fileReadNoSuchFile ? .notFound : .io
        case is POSIXError: self = .io
        default: self = .internal
        }
    }
}

/// A host-level input that is out of range, named with the accepted range (`--scale must be > 0`).
public struct InvalidArgumentError: TesseraError, Equatable {
    /// The option or parameter, as the host names it (`--scale`, `size`).
    public var argument: String
    /// Why the value is refused, including the accepted range.
    public var reason: String

    /// An error for `argument` (as the host names it), refused because of `reason` (`"must be > 0"`).
    public init(_ argument: String, _ reason: String) {
        self.argument = argument
        self.reason = reason
    }

    /// Always ``ErrorCategory/badInput``.
    public var category: ErrorCategory { .badInput }
    public var description: String { "\(argument) \(reason)" }
}

/// An error's description made safe for one line of output: control characters written as
/// escapes (`\n`, `\u{1B}`), so a newline in a hostile file name or in bytes a message quotes from a
/// damaged file cannot split the line.
public func oneLine(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return text }
    return text.unicodeScalars.map { scalar in
        guard scalar.properties.generalCategory == .control else { return String(scalar) }
        switch scalar {
        case "\n": return "\\n"
        case "\r": return "\\r"
        case "\t": return "\\t"
        default: return "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
        }
    }.joined()
}
