import CTesseraShims
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Encoded bytes in the form a C codec library reads them: an open `FILE` for files (streamed,
/// never loaded whole), a `FILE` over a ranged source (glibc's `fopencookie`, reading through a
/// ``RangedByteStream``, so libjpeg and libpng stream from S3 as from disk), or a stable copy of
/// in-memory bytes that lives as long as this object.
final class LibraryInput {
    private let fileStream: FileByteStream?
    private let cookieFile: UnsafeMutablePointer<FILE>?
    private let rangedStream: RangedByteStream?
    private let bytes: UnsafeMutableRawBufferPointer?

    /// - Parameter inMemory: the library reads only from memory (libtiff here): a ranged source is
    ///   read whole.
    init(_ source: ImageSource, inMemory: Bool = false) throws(ImageDecodingError) {
        var storage = source.storage
        if inMemory, case .ranged = storage { storage = .data(try source.loadData()) }
        switch storage {
        case .file(let path):
            fileStream = try FileByteStream(path: path)
            fileStream?.rewindForLibrary()
            cookieFile = nil
            rangedStream = nil
            bytes = nil
        case .data(let data):
            let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(data.count, 1), alignment: 16)
            _ = data.copyBytes(to: copy.bindMemory(to: UInt8.self))
            fileStream = nil
            cookieFile = nil
            rangedStream = nil
            bytes = UnsafeMutableRawBufferPointer(rebasing: copy[0..<data.count])
        case .ranged(let reader):
            fileStream = nil
            bytes = nil
            let stream = RangedByteStream(reader: reader)
            rangedStream = stream
            cookieFile = Self.openCookie(stream)
            guard cookieFile != nil else { throw .unreadable(reason: "fopencookie failed") }
        }
    }

    deinit {
        bytes?.deallocate()
        if let cookieFile { fclose(cookieFile) }
    }

    /// Why a ranged source's transfer failed, if it did: the readers throw it rather than report
    /// the file truncated.
    var readFailure: ImageDecodingError? { rangedStream?.readFailure }

    /// The local file's length in bytes; nil for other input.
    var fileByteCount: Int? { fileStream?.length }

    /// Whether the input is a local file (seeking is a system call, not a transfer).
    var isLocalFile: Bool { fileStream != nil }

    /// Calls `body` with the open file, or returns nil for in-memory input.
    func withFile<Result>(_ body: (UnsafeMutablePointer<FILE>) -> Result) -> Result? {
        if let cookieFile { return body(cookieFile) }
        return fileStream.map { body($0.file) }
    }

    /// Calls `body` with the in-memory bytes and their count. Only valid for in-memory input.
    func withBytes<Result>(_ body: (UnsafePointer<UInt8>, Int) -> Result) -> Result {
        let base = bytes?.baseAddress?.assumingMemoryBound(to: UInt8.self)
        return body(UnsafePointer(base) ?? UnsafePointer(bitPattern: 1)!, bytes?.count ?? 0)
    }

    /// A read-only `FILE` whose reads and seeks go to `stream`, which it keeps until closed.
    private static func openCookie(_ stream: RangedByteStream) -> UnsafeMutablePointer<FILE>? {
        let cookie = Unmanaged.passRetained(stream).toOpaque()
        let file = tessera_open_reader(
            cookie,
            { cookie, buffer, size in
                let stream = Unmanaged<RangedByteStream>.fromOpaque(cookie!).takeUnretainedValue()
                let bytes = stream.read(size)
                if bytes.isEmpty, stream.readFailure != nil { return -1 }
                bytes.withUnsafeBytes { UnsafeMutableRawPointer(buffer!).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
                return bytes.count
            },
            { cookie, position, whence in
                let stream = Unmanaged<RangedByteStream>.fromOpaque(cookie!).takeUnretainedValue()
                let base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? stream.offset : stream.length
                let (target, overflow) = base.addingReportingOverflow(Int(position!.pointee))
                guard !overflow, target >= 0 else { return -1 }
                stream.offset = min(target, stream.length)
                position!.pointee = Int64(stream.offset)
                return 0
            },
            { cookie in
                Unmanaged<RangedByteStream>.fromOpaque(cookie!).release()
                return 0
            })
        if file == nil { Unmanaged<RangedByteStream>.fromOpaque(cookie).release() }
        return file
    }
}
