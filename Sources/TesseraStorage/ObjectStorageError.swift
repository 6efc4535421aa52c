public import TesseraCore

/// Why an object store refused or failed an operation. Descriptions name the key, never a local
/// path or a credential.
public enum ObjectStorageError: TesseraError, Equatable {
    /// No object has this key.
    case notFound(key: String)
    /// A key that breaks ``ObjectKey``'s rules.
    case invalidKey(String)
    /// A store location that cannot be used (`s3://` without a bucket, missing credentials).
    case badConfiguration(String)
    /// The store answered with an error that retrying did not cure: HTTP status and S3's code.
    case serviceError(status: Int, code: String, key: String)
    /// The store could not be reached, or did not answer in time, after every retry.
    case unreachable(String)
    /// Reading or writing the local directory failed.
    case io(String)
    /// A response that breaks the protocol (an unparseable listing).
    case invalidResponse(String)

    public var description: String {
        switch self {
        case .notFound(let key): "no object \(key)"
        case .invalidKey(let key): "invalid object key \"\(oneLine(key))\""
        case .badConfiguration(let reason): "object storage: \(reason)"
        case .serviceError(let status, let code, let key): "object storage answered \(status) \(code) for \(key)"
        case .unreachable(let reason): "object storage unreachable: \(reason)"
        case .io(let reason): "object storage: \(reason)"
        case .invalidResponse(let reason): "object storage sent an invalid response: \(reason)"
        }
    }

    /// `ErrorCategory.notFound` for a missing object, `ErrorCategory.badInput` for a bad key or
    /// configuration, `ErrorCategory.io` for local failures and S3's 403, `ErrorCategory.network`
    /// for other answers and failures of the service.
    public var category: ErrorCategory {
        switch self {
        case .notFound: .notFound
        case .invalidKey, .badConfiguration: .badInput
        case .serviceError(let status, _, _) where status == 403: .io
        case .serviceError, .unreachable, .invalidResponse: .network
        case .io: .io
        }
    }
}
