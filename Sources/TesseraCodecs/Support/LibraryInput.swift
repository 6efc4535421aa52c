import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Encoded bytes in the form a C codec library reads them: an open `FILE` for files (streamed,
/// never loaded whole) or a stable copy of in-memory bytes that lives as long as this object.
final class LibraryInput {
    private let fileStream: FileByteStream?
    private let bytes: UnsafeMutableRawBufferPointer?

    init(_ source: ImageSource) throws(ImageDecodingError) {
        switch source.storage {
        case .file(let path):
            fileStream = try FileByteStream(path: path)
            fileStream?.rewindForLibrary()
            bytes = nil
        case .data(let data):
            let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(data.count, 1), alignment: 16)
            _ = data.copyBytes(to: copy.bindMemory(to: UInt8.self))
            fileStream = nil
            bytes = UnsafeMutableRawBufferPointer(rebasing: copy[0..<data.count])
        }
    }

    deinit { bytes?.deallocate() }

    /// Calls `body` with the open file, or returns nil for in-memory input.
    func withFile<Result>(_ body: (UnsafeMutablePointer<FILE>) -> Result) -> Result? {
        fileStream.map { body($0.file) }
    }

    /// Calls `body` with the in-memory bytes and their count. Only valid for in-memory input.
    func withBytes<Result>(_ body: (UnsafePointer<UInt8>, Int) -> Result) -> Result {
        let base = bytes?.baseAddress?.assumingMemoryBound(to: UInt8.self)
        return body(UnsafePointer(base) ?? UnsafePointer(bitPattern: 1)!, bytes?.count ?? 0)
    }
}
