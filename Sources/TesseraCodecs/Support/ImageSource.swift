public import FoundationEssentials

/// Where encoded image bytes come from: a file on disk (read on demand, so a huge file is never
/// loaded whole), bytes already in memory, or bytes held elsewhere and read in ranges on demand
/// (an object in S3).
public struct ImageSource: Sendable {
    enum Storage: Sendable {
        case file(String)
        case data(Data)
        case ranged(any ByteRangeReading)
    }

    let storage: Storage

    /// A file, opened only when read.
    public static func file(_ path: String) -> ImageSource { ImageSource(storage: .file(path)) }

    /// Bytes in memory.
    public static func data(_ data: Data) -> ImageSource { ImageSource(storage: .data(data)) }

    /// Bytes read in ranges as the decoder asks for them: JPEG, PNG and GIF stream from it (a probe
    /// reads the header's few kilobytes); the formats whose libraries want the whole file (TIFF,
    /// HEIF, WebP, SVG, PDF) read it all into memory first.
    ///
    /// The reader may block (a network request), so decode such sources on the `WorkExecutor`
    /// (as ``Thumbnailer`` and the pyramid builder do), not on the concurrency pool's threads.
    public static func ranged(_ reader: any ByteRangeReading) -> ImageSource { ImageSource(storage: .ranged(reader)) }

    /// The file's path, for a source that is a file (libraries that open files themselves).
    public var filePath: String? {
        if case .file(let path) = storage { return path }
        return nil
    }

    /// The format the first bytes say (``ImageFormat/init(sniffing:)``), or nil when they name
    /// none Tessera reads. Reads at most ``ImageFormat/sniffLength`` bytes.
    public func sniffedFormat() throws(ImageDecodingError) -> ImageFormat? {
        let stream = try openStream()
        let prefix = stream.read(ImageFormat.sniffLength)
        if let failure = stream.readFailure { throw failure }
        return ImageFormat(sniffing: prefix)
    }

    /// Opens a reader for a few reads far apart (``DescriptorByteStream`` for a file: each read one
    /// `pread` of what is asked); the others' streams are as ``openStream()``'s.
    func openSparseStream() throws(ImageDecodingError) -> ByteStream {
        if case .file(let path) = storage { return try DescriptorByteStream(path: path) }
        return try openStream()
    }

    /// Opens a sequential reader over the encoded bytes.
    func openStream() throws(ImageDecodingError) -> ByteStream {
        switch storage {
        case .file(let path): try FileByteStream(path: path)
        case .data(let data): DataByteStream(data: data)
        case .ranged(let reader): RangedByteStream(reader: reader)
        }
    }

    /// All the encoded bytes. Only for formats whose library needs them in memory at once.
    func loadData() throws(ImageDecodingError) -> Data {
        switch storage {
        case .data(let data):
            return data
        case .ranged(let reader):
            var data = Data(capacity: reader.byteCount)
            let chunk = 8 << 20
            while data.count < reader.byteCount {
                let bytes = try reader.read(at: data.count, count: min(chunk, reader.byteCount - data.count))
                guard !bytes.isEmpty else { throw .truncated(reason: "the source ended at byte \(data.count) of \(reader.byteCount)") }
                data.append(contentsOf: bytes)
            }
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

/// Random access to encoded bytes kept elsewhere: what ``ImageSource/ranged(_:)`` reads from.
public protocol ByteRangeReading: Sendable {
    /// The length of the whole, in bytes.
    var byteCount: Int { get }
    /// Up to `count` bytes from `offset`; fewer only at the end. May block.
    /// - Throws: ``ImageDecodingError`` (`.transferFailed`, `.notFound`).
    func read(at offset: Int, count: Int) throws(ImageDecodingError) -> [UInt8]
}
