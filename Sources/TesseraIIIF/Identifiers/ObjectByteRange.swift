public import TesseraCodecs
import TesseraCore
public import TesseraStorage

/// An object in an `ObjectStoring` read in byte ranges, as an `ImageSource`:
/// `ImageSource.ranged(try await ObjectByteRange(store: store, key: key))`. JPEG, PNG and GIF
/// then stream from the store in 256 KB ranges (a probe reads one or two); other formats read the
/// whole object first.
///
/// Reads block their thread until the range arrives, so decode on the `WorkExecutor`. It lives
/// here, beside the resolver that makes sources of objects, so that storage knows no codec.
public struct ObjectByteRange: ByteRangeReading {
    /// The store the object is read from.
    public let store: any ObjectStoring
    /// The object's key in ``store``.
    public let key: String
    public let byteCount: Int

    /// Asks the store for the object's size.
    /// - Throws: `ObjectStorageError.notFound(key:)` when there is no such object.
    public init(store: any ObjectStoring, key: String) async throws {
        guard let metadata = try await store.head(key) else { throw ObjectStorageError.notFound(key: key) }
        self.init(store: store, key: key, byteCount: metadata.size)
    }

    /// An object whose size is known already (from a listing).
    public init(store: any ObjectStoring, key: String, byteCount: Int) {
        self.store = store
        self.key = key
        self.byteCount = byteCount
    }

    public func read(at offset: Int, count: Int) throws(ImageDecodingError) -> [UInt8] {
        let (store, key) = (self.store, self.key)
        let range = offset..<min(offset + max(count, 0), byteCount)
        guard !range.isEmpty else { return [] }
        do {
            return try BlockingResult<[UInt8]>.run { [UInt8](try await store.get(key, range: range)) }
        } catch {
            if case ObjectStorageError.notFound = error { throw .notFound }
            throw .transferFailed(reason: String(describing: error))
        }
    }
}
