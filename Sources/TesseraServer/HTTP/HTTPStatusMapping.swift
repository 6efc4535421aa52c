import HTTPTypes
import TesseraCore

extension HTTPResponse.Status {
    /// The one table from the library's error categories to HTTP statuses (README, "Serving").
    init(_ category: ErrorCategory) {
        switch category {
        case .badInput: self = .badRequest
        case .notFound: self = .notFound
        case .unsupported: self = .notImplemented
        // IIIF: a request over maxArea/maxWidth or a source over the pixel limit is the client's to change.
        case .tooLarge: self = .badRequest
        // A damaged source is the server's problem, not the request's.
        case .truncated, .corrupt, .io, .internal: self = .internalServerError
        case .libraryUnavailable: self = .notImplemented
        case .network: self = .badGateway
        // Too much work queued, or a request that passed its deadline: try again later.
        case .busy, .cancelled: self = .serviceUnavailable
        }
    }
}
