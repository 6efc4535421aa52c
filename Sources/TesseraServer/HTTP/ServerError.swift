public import TesseraCore

/// A failure of the server's own (not the library's): a deadline passed, a Deep Zoom tile outside
/// its grid, a stored tile that could not be read. The message never contains a filesystem path.
public struct ServerError: TesseraError, Equatable {
    public var category: ErrorCategory
    public var message: String

    public init(_ category: ErrorCategory, _ message: String) {
        self.category = category
        self.message = message
    }

    public var description: String { message }
}
