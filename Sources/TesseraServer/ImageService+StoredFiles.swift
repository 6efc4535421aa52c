import NIOCore
import TesseraCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// Stored tiles read whole, for the event loop's answers and the router's.
extension ImageService {
    /// A whole file's bytes (a stored tile): `byteCount` of them when the length is known (no
    /// `fstat`; a file of another length fails), else as many as `fstat` says. The message of a
    /// failure names no path.
    static func readFile(_ path: String, byteCount: Int? = nil) throws -> ByteBuffer {
        func failure(_ code: Int32) -> ServerError {
            ServerError(.io, "a stored tile could not be read: \(String(cString: strerror(code)))")
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ServerError(.io, "a stored tile could not be opened: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        let length: Int
        if let byteCount {
            length = byteCount
        } else {
            var info = stat()
            guard fstat(descriptor, &info) == 0 else { throw failure(errno) }
            length = Int(info.st_size)
        }
        // One byte more than expected is asked for, so a longer file shows as one; reading stops
        // at the expected length without a read that finds the end.
        var buffer = ByteBufferAllocator().buffer(capacity: length + 1)
        var error: Int32 = 0
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: length + 1) { space in
            var done = 0
            while done < length || length == 0 {
                let count = read(descriptor, space.baseAddress! + done, length + 1 - done)
                if count < 0, errno == EINTR { continue }
                if count < 0 { error = errno }
                if count <= 0 { break }
                done += count
                if done > length { break }
            }
            return done
        }
        guard error == 0 else { throw failure(error) }
        guard buffer.readableBytes == length else { throw failure(EIO) }
        return buffer
    }
}
