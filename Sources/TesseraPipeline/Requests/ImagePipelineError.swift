public import TesseraCodecs
public import TesseraCore

/// Why a request failed.
public enum ImagePipelineError: TesseraError, Equatable {
    /// The server answered with a status that is not success.
    case httpStatus(Int)
    /// No answer within the timeout.
    case timedOut
    /// The server could not be reached (refused, unresolvable, reset).
    case connectionFailed(String)
    /// The body exceeded the maximum response size.
    case responseTooLarge(limit: Int)
    /// A scheme other than http, https or file.
    case unsupportedURL(String)
    /// The bytes arrived but are not a decodable image.
    case decodingFailed(ImageDecodingError)
    /// A processor failed.
    case processingFailed(String)

    public var description: String {
        switch self {
        case .httpStatus(let code): "HTTP status \(code)"
        case .timedOut: "timed out"
        case .connectionFailed(let reason): "connection failed: \(reason)"
        case .responseTooLarge(let limit): "response larger than \(limit) bytes"
        case .unsupportedURL(let url): "unsupported URL \(url)"
        case .decodingFailed(let error): error.description
        case .processingFailed(let reason): "processing failed: \(reason)"
        }
    }

    /// `ErrorCategory.notFound` for 404 and 410, `ErrorCategory.network` for other statuses,
    /// timeouts and failed connections, `ErrorCategory.tooLarge` for a body over the limit,
    /// `ErrorCategory.badInput` for a URL that cannot be loaded, `ErrorCategory.internal` for a failed
    /// processor, and the decoder's own category for a decoding failure.
    public var category: ErrorCategory {
        switch self {
        case .httpStatus(404), .httpStatus(410): .notFound
        case .httpStatus, .timedOut, .connectionFailed: .network
        case .responseTooLarge: .tooLarge
        case .unsupportedURL: .badInput
        case .decodingFailed(let error): error.category
        case .processingFailed: .internal
        }
    }
}
