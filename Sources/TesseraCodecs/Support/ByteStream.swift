import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A seekable reader over encoded bytes, for the header parsers: they read a few bytes at a time
/// and seek past the rest, so probing never touches pixel data.
protocol ByteStream: AnyObject {
    /// Total length in bytes.
    var length: Int { get }
    /// The position of the next read.
    var offset: Int { get set }
    /// Up to `count` bytes from the current position; fewer only at the end of the input, or after
    /// a read failed (``readFailure``).
    func read(_ count: Int) -> [UInt8]
    /// As ``read(_:)``, for bytes far from the last read (a walk over item headers a frame apart, a
    /// frame): ``DescriptorByteStream`` reads just them; the windowed streams read as ``read(_:)``.
    func readSparse(_ count: Int) -> [UInt8]
    /// Why the input ended early when it was not its end (a ranged source whose transfer failed);
    /// nil for files and memory.
    var readFailure: ImageDecodingError? { get }
}

extension ByteStream {
    var readFailure: ImageDecodingError? { nil }

    func seek(to position: Int) { offset = min(max(position, 0), length) }

    func skip(_ count: Int) { seek(to: offset + count) }

    var isAtEnd: Bool { offset >= length }

    /// Exactly `count` bytes, or a truncation error.
    func readExactly(_ count: Int) throws(ImageDecodingError) -> [UInt8] {
        let bytes = read(count)
        guard bytes.count == count else { throw readFailure ?? .truncated(reason: "the file ends inside its header") }
        return bytes
    }

    func readUInt8() throws(ImageDecodingError) -> UInt8 { try readExactly(1)[0] }

    func readBigEndian16() throws(ImageDecodingError) -> Int {
        let b = try readExactly(2)
        return Int(b[0]) << 8 | Int(b[1])
    }

    func readBigEndian32() throws(ImageDecodingError) -> Int {
        let b = try readExactly(4)
        return Int(b[0]) << 24 | Int(b[1]) << 16 | Int(b[2]) << 8 | Int(b[3])
    }

    func readLittleEndian16() throws(ImageDecodingError) -> Int {
        let b = try readExactly(2)
        return Int(b[0]) | Int(b[1]) << 8
    }

    func readLittleEndian24() throws(ImageDecodingError) -> Int {
        let b = try readExactly(3)
        return Int(b[0]) | Int(b[1]) << 8 | Int(b[2]) << 16
    }

    func readLittleEndian32() throws(ImageDecodingError) -> Int {
        let b = try readExactly(4)
        return Int(b[0]) | Int(b[1]) << 8 | Int(b[2]) << 16 | Int(b[3]) << 24
    }
}

final class DataByteStream: ByteStream {
    private let data: Data
    let length: Int
    var offset = 0

    func readSparse(_ count: Int) -> [UInt8] { read(count) }

    init(data: Data) {
        self.data = data
        self.length = data.count
    }

    func read(_ count: Int) -> [UInt8] {
        let end = min(offset + max(count, 0), length)
        let start = data.startIndex + offset
        let bytes = [UInt8](data[start..<data.startIndex + end])
        offset = end
        return bytes
    }
}

/// Reads a file through stdio; the `FILE` is also handed to libjpeg and libpng for streaming decodes.
final class FileByteStream: ByteStream {
    let file: UnsafeMutablePointer<FILE>
    let length: Int
    var offset = 0

    init(path: String) throws(ImageDecodingError) {
        guard let file = fopen(path, "rb") else {
            if errno == ENOENT || errno == ENOTDIR { throw .notFound }
            throw .unreadable(reason: String(cString: strerror(errno)))
        }
        var status = stat()
        guard fstat(fileno(file), &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            fclose(file)
            throw .unreadable(reason: "not a regular file")
        }
        self.file = file
        self.length = Int(status.st_size)
    }

    deinit { fclose(file) }

    func read(_ count: Int) -> [UInt8] {
        let wanted = min(max(count, 0), length - offset)
        guard wanted > 0 else { return [] }
        // Small reads (header walks, giflib's sub-blocks of at most 255 bytes) come from a window
        // of the file read once; seeking the `FILE` for each would drop stdio's buffer and read it
        // again, a system call or two per read.
        if wanted <= Self.windowByteCount / 4 {
            if offset < windowStart || offset + wanted > windowStart + window.count {
                window = readFile(at: offset, count: min(Self.windowByteCount, length - offset))
                windowStart = offset
            }
            let start = offset - windowStart
            let got = min(wanted, window.count - start)
            offset += got
            return Array(window[start..<start + got])
        }
        let bytes = readFile(at: offset, count: wanted)
        offset += bytes.count
        return bytes
    }

    /// Few reads are far apart through this stream (``DescriptorByteStream`` is for those).
    func readSparse(_ count: Int) -> [UInt8] { read(count) }

    private static let windowByteCount = 64 << 10
    private var window: [UInt8] = []
    private var windowStart = 0

    private func readFile(at position: Int, count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        fseeko(file, off_t(position), SEEK_SET)
        let got = bytes.withUnsafeMutableBytes { fread($0.baseAddress, 1, count, file) }
        return got == count ? bytes : Array(bytes.prefix(got))
    }

    /// Positions the underlying `FILE` at the start, for a C library that reads it from there.
    func rewindForLibrary() {
        offset = 0
        fseeko(file, 0, SEEK_SET)
    }
}

/// Reads a file through its descriptor, each read one `pread` of exactly what is asked: for reads
/// of a few pieces far apart (a slide's frame: its item header, then its bytes), where stdio's
/// buffer and ``FileByteStream``'s window would read more than is used.
final class DescriptorByteStream: ByteStream {
    private let descriptor: Int32
    let length: Int
    var offset = 0

    init(path: String) throws(ImageDecodingError) {
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT || errno == ENOTDIR { throw .notFound }
            throw .unreadable(reason: String(cString: strerror(errno)))
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            throw .unreadable(reason: "not a regular file")
        }
        length = Int(status.st_size)
    }

    deinit { close(descriptor) }

    func read(_ count: Int) -> [UInt8] {
        let wanted = min(max(count, 0), length - offset)
        guard wanted > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: wanted)
        let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, wanted, off_t(offset)) }
        guard got > 0 else { return [] }
        offset += got
        return got == wanted ? bytes : Array(bytes.prefix(got))
    }

    func readSparse(_ count: Int) -> [UInt8] { read(count) }
}

/// Reads a ``ByteRangeReading`` source in windows of 256 KB: header walks and codec reads of a few
/// kilobytes at a time cost one ranged request per window, not one each. A failed read ends the
/// stream there and is kept in ``readFailure``, which the readers throw instead of truncation.
final class RangedByteStream: ByteStream {
    private let reader: any ByteRangeReading
    let length: Int
    var offset = 0
    /// The first read that failed, if any.
    private(set) var readFailure: ImageDecodingError?
    private var window: [UInt8] = []
    private var windowStart = 0

    static let windowByteCount = 256 << 10

    /// A request per header a frame apart would cost more than the windows: read as ``read(_:)``.
    func readSparse(_ count: Int) -> [UInt8] { read(count) }

    init(reader: any ByteRangeReading) {
        self.reader = reader
        length = reader.byteCount
    }

    func read(_ count: Int) -> [UInt8] {
        let wanted = min(max(count, 0), length - offset)
        guard wanted > 0, readFailure == nil else { return [] }
        if offset >= windowStart, offset + wanted <= windowStart + window.count {
            let start = offset - windowStart
            offset += wanted
            return Array(window[start..<start + wanted])
        }
        do {
            if wanted >= Self.windowByteCount / 4 {
                let bytes = try reader.read(at: offset, count: wanted)
                offset += bytes.count
                return bytes
            }
            window = try reader.read(at: offset, count: min(Self.windowByteCount, length - offset))
            windowStart = offset
            let got = min(wanted, window.count)
            offset += got
            return Array(window[0..<got])
        } catch {
            readFailure = error
            return []
        }
    }
}
