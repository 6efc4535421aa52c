public import FoundationEssentials

/// Where encoded image bytes come from: a file on disk (read on demand, so a huge file is never
/// loaded whole) or bytes already in memory.
public struct ImageSource: Sendable {
    enum Storage: Sendable {
        case file(String)
        case data(Data)
    }

    let storage: Storage

    /// A file, opened only when read.
    public static func file(_ path: String) -> ImageSource { ImageSource(storage: .file(path)) }

    /// Bytes in memory.
    public static func data(_ data: Data) -> ImageSource { ImageSource(storage: .data(data)) }

    var filePath: String? {
        if case .file(let path) = storage { return path }
        return nil
    }

    /// Opens a sequential reader over the encoded bytes.
    func openStream() throws(ImageDecodingError) -> ByteStream {
        switch storage {
        case .file(let path): try FileByteStream(path: path)
        case .data(let data): DataByteStream(data: data)
        }
    }

    /// All the encoded bytes. Only for formats whose library needs them in memory at once.
    func loadData() throws(ImageDecodingError) -> Data {
        switch storage {
        case .data(let data):
            return data
        case .file(let path):
            do {
                return try Data(contentsOf: URL(fileURLWithPath: path), options: .mappedIfSafe)
            } catch {
                throw .unreadable(reason: fileSystemReason(error))
            }
        }
    }
}
