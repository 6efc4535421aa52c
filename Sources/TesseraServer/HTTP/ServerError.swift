public import TesseraCore

/// A failure of the server's own (not the library's): a deadline passed, a Deep Zoom tile outside
/// its grid, a stored tile that could not be read. The message never contains a filesystem path.
public struct ServerError: TesseraError, Equatable {
    public var category: ErrorCategory
    /// One line for the response body and the log; names no path.
    public var message: String

    /// A failure of `category` (its HTTP status comes from that), described by `message`.
    public init(_ category: ErrorCategory, _ message: String) {
        self.category = category
        self.message = message
    }

    public var description: String { message }
}
