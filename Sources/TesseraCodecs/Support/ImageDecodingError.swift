public import TesseraCore

/// Why an image could not be probed or decoded. Every failure of a codec library ends up as one
/// of these; none of them crashes the process or prints on its own.
public enum ImageDecodingError: TesseraError, Equatable {
    /// The input has no bytes at all.
    case empty
    /// The bytes are not any format Tessera reads.
    case unknownFormat
    /// The file ends before the image does.
    case truncated(reason: String)
    /// The bytes claim a format but break its rules.
    case corrupt(reason: String)
    /// A valid file using a feature Tessera does not decode.
    case unsupported(reason: String)
    /// A full decode would need more pixels than the configured limit allows.
    case tooLarge(pixels: Int, limit: Int)
    /// The input could not be read at all (permission, not a regular file).
    case unreadable(reason: String)
    /// There is no file at the path.
    case notFound
    /// A source kept elsewhere (``ImageSource/ranged(_:)``: an object in S3) could not be fetched.
    case transferFailed(reason: String)
    /// A system library the format needs (libheif, librsvg, libtiff) is not installed.
    case libraryUnavailable(reason: String)
    /// The task the work ran for was cancelled.
    case cancelled
    /// The page asked for (from 0) is not in the document, which has `count`.
    case noSuchPage(index: Int, count: Int)
    /// The animation frame asked for (from 0) is not in the image, which has `count`.
    case noSuchFrame(index: Int, count: Int)

    public var description: String {
        switch self {
        case .empty: "the file is empty"
        case .unknownFormat: "not an image format Tessera reads"
        case .truncated(let reason): "truncated: \(reason)"
        case .corrupt(let reason): "corrupt: \(reason)"
        case .unsupported(let reason): "unsupported: \(reason)"
        case .tooLarge(let pixels, let limit):
            "too large: a full decode needs \(pixels) pixels, over the limit of \(limit)"
        case .unreadable(let reason): "cannot read: \(reason)"
        case .notFound: "no such file"
        case .transferFailed(let reason): "could not fetch: \(reason)"
        case .libraryUnavailable(let reason): "library unavailable: \(reason)"
        case .cancelled: "cancelled"
        case .noSuchPage(let index, let count): "there is no page \(index + 1): the document has \(count)"
        case .noSuchFrame(let index, let count): "there is no frame \(index): the image has \(count) (numbered from 0)"
        }
    }

    /// A short stable name for the kind of failure (used in JSON output and tests).
    public var kind: String {
        switch self {
        case .empty: "empty"
        case .unknownFormat: "unknownFormat"
        case .truncated: "truncated"
        case .corrupt: "corrupt"
        case .unsupported: "unsupported"
        case .tooLarge: "tooLarge"
        case .unreadable: "unreadable"
        case .notFound: "notFound"
        case .transferFailed: "transferFailed"
        case .libraryUnavailable: "libraryUnavailable"
        case .cancelled: "cancelled"
        case .noSuchPage: "noSuchPage"
        case .noSuchFrame: "noSuchFrame"
        }
    }

    /// The host-facing category: `ErrorCategory.truncated` for empty or truncated input,
    /// `ErrorCategory.unsupported` for unknown formats and features, `ErrorCategory.badInput` for a
    /// page or frame the file lacks, and the matching category for the others.
    public var category: ErrorCategory {
        switch self {
        case .empty, .truncated: .truncated
        case .unknownFormat, .unsupported: .unsupported
        case .corrupt: .corrupt
        case .tooLarge: .tooLarge
        case .unreadable: .io
        case .notFound: .notFound
        case .transferFailed: .network
        case .libraryUnavailable: .libraryUnavailable
        case .cancelled: .cancelled
        // A page the document lacks is a resource that is not there, as a file that is not.
        case .noSuchPage: .notFound
        case .noSuchFrame: .badInput
        }
    }
}
