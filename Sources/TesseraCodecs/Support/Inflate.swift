import CZlib

/// zlib inflation of small metadata (a PNG's compressed ICC profile), with a bound on the output
/// so a few hostile bytes cannot inflate to gigabytes.
enum Inflate {
    /// The inflated bytes of the zlib stream `compressed`, or nil when it is not a complete stream
    /// or would inflate past `limit` bytes.
    static func bounded(_ compressed: ArraySlice<UInt8>, limit: Int) -> [UInt8]? {
        inflated(compressed, limit: limit, gzip: false, partial: false)
    }

    /// The start of a gzip stream's content, at most `limit` bytes, however much of the stream
    /// `compressed` holds (sniffing a gzipped file by its first bytes); nil when it is no gzip data.
    static func gzipPrefix(_ compressed: ArraySlice<UInt8>, limit: Int) -> [UInt8]? {
        inflated(compressed, limit: limit, gzip: true, partial: true)
    }

    /// A whole gzip stream's content, or nil when it is incomplete, damaged or would inflate past
    /// `limit` bytes.
    static func gunzip(_ compressed: ArraySlice<UInt8>, limit: Int) -> [UInt8]? {
        inflated(compressed, limit: limit, gzip: true, partial: false)
    }

    /// `partial`: what inflates before the input or the limit runs out is the answer.
    private static func inflated(_ compressed: ArraySlice<UInt8>, limit: Int, gzip: Bool, partial: Bool) -> [UInt8]? {
        var stream = z_stream()
        // 15: the largest window; +16: a gzip header and trailer rather than zlib's.
        guard inflateInit2_(&stream, gzip ? 15 + 16 : 15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        var input = Array(compressed)
        let status: Int32 = input.withUnsafeMutableBufferPointer { inputBuffer in
            stream.next_in = inputBuffer.baseAddress
            stream.avail_in = UInt32(inputBuffer.count)
            while true {
                let result = chunk.withUnsafeMutableBufferPointer { chunkBuffer in
                    stream.next_out = chunkBuffer.baseAddress
                    stream.avail_out = UInt32(chunkBuffer.count)
                    return inflate(&stream, Z_NO_FLUSH)
                }
                let produced = chunk.count - Int(stream.avail_out)
                guard output.count + produced <= limit else {
                    guard partial else { return Z_BUF_ERROR }
                    output += chunk[..<(limit - output.count)]
                    return Z_STREAM_END
                }
                output += chunk[..<produced]
                if result == Z_STREAM_END { return Z_STREAM_END }
                if partial, result == Z_OK || result == Z_BUF_ERROR, stream.avail_in == 0 { return output.isEmpty ? Z_DATA_ERROR : Z_STREAM_END }
                guard result == Z_OK, produced > 0 || stream.avail_in > 0 else { return result == Z_OK ? Z_DATA_ERROR : result }
            }
        }
        return status == Z_STREAM_END ? output : nil
    }
}
