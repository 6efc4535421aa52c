import CZlib
import Foundation
import HummingbirdTesting
import NIOCore
import TesseraCodecs
import TesseraCore

@testable import TesseraServer

#if canImport(Glibc)
    import Glibc
#endif

/// A root directory with test images and a fresh cache directory, removed by `cleanUp`.
struct ServerSandbox {
    let root: String
    let cache: String

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures").path

    init() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-serve-\(UUID().uuidString)").path
        root = base + "/root"
        cache = base + "/cache"
        try FileManager.default.createDirectory(atPath: root + "/sub dir", withIntermediateDirectories: true)
        for name in ["photo-400x300.png", "jpeg-baseline.jpg", "broken-truncated.jpg", "broken-random.jpg"] {
            try FileManager.default.copyItem(atPath: Self.fixtures + "/" + name, toPath: root + "/" + name)
        }
        try FileManager.default.copyItem(atPath: Self.fixtures + "/photo-400x300.png", toPath: root + "/sub dir/nested.png")
        // A larger image with detail everywhere, for the pyramid path (1300×1000: three IIIF levels of 512 tiles).
        try ImageEncoder.encode(Self.pattern(width: 1300, height: 1000), as: .png()).write(to: URL(fileURLWithPath: root + "/big.png"))
    }

    var base: String { URL(fileURLWithPath: root).deletingLastPathComponent().path }

    func cleanUp() { try? FileManager.default.removeItem(atPath: base) }

    func server(_ configure: (inout ServerConfiguration) -> Void = { _ in }) throws -> TesseraServer {
        var configuration = ServerConfiguration(root: root, cacheDirectory: cache)
        // A debug build runs the whole suite at once on two cores (several times slower still under
        // `make sanitize`): 30 s to answer is not always enough there (a clean CI run saw 503s),
        // and no test here is about that deadline unless it sets its own.
        configuration.requestTimeout = .seconds(600)
        // Likewise the idle deadline: a test that waits for a background build between two requests
        // on one keep-alive connection saw it closed under that load ("I/O on closed channel").
        configuration.idleTimeout = .seconds(600)
        configure(&configuration)
        return try TesseraServer(configuration: configuration)
    }

    /// Levels of ``pattern(width:height:)``, each the full-size pattern halved (rounded up) `n`
    /// times and drawn afresh at that size, so every level is distinct and exactly known.
    static func levels(width: Int, height: Int, count: Int) -> [PixelBuffer] {
        (0..<count).map { n in pattern(width: (width + (1 << n) - 1) >> n, height: (height + (1 << n) - 1) >> n) }
    }

    /// A deterministic RGB pattern: gradients plus a fine checker, so any misplaced pixel shows.
    static func pattern(width: Int, height: Int) -> PixelBuffer {
        var bytes = [UInt8]()
        bytes.reserveCapacity(width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let checker: UInt8 = ((x / 8 + y / 8) % 2 == 0) ? 40 : 0
                bytes += [
                    UInt8(x * 255 / max(1, width - 1)) / 2 + checker, UInt8(y * 255 / max(1, height - 1)) / 2 + checker,
                    UInt8((x + y) % 256) / 2,
                ]
            }
        }
        return PixelBuffer(width: width, height: height, format: .rgb8, bytes: bytes)
    }
}

extension TesseraServer {
    /// Runs `test` against the server's router, in process.
    func test(_ test: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        try await makeApplication().test(.router, test)
    }
}

/// The pixels of an encoded response body.
func decodePixels(_ body: ByteBuffer) throws -> PixelBuffer {
    try ImageDecoder().decode(.data(Data(body.readableBytesView))).pixels
}

/// A new connection to 127.0.0.1:`port` with `request` written to it (reads time out after 300 s:
/// the whole suite shares two cores);
/// the caller closes it.
func connectedSocket(port: Int, sending request: String) throws -> Int32 {
    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard socket >= 0 else { throw POSIXError(.EIO) }
    var timeout = timeval(tv_sec: 300, tv_usec: 0)
    setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    let bytes = Array(request.utf8)
    guard connected == 0, write(socket, bytes, bytes.count) == bytes.count else {
        close(socket)
        throw POSIXError(.ECONNREFUSED)
    }
    return socket
}

/// Waits until `done` holds, checking every 50 ms, at most 2,400 times (two minutes): for what
/// another thread or process does in its own time (a background build, a cancelled job).
/// `body`'s result, run on a thread of its own: a blocking wait (a socket read, a gate) on a
/// shared pool's thread can starve that pool when the whole suite runs at once on two cores (a CI
/// run saw 60-s test limits pass and sockets time out so).
func onOwnThread<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}

func poll(_ done: () async throws -> Bool) async throws {
    for _ in 0..<2400 {
        if try await done() { return }
        try await Task.sleep(for: .milliseconds(50))
    }
}

/// Writes a black `width`×`height` RGB PNG to `path` row by row (one row of memory, whatever the
/// size): a large source that is quick to make and slow to decode whole.
func writeBlackPNG(width: Int, height: Int, to path: String) throws {
    func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        let crc = body.withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress, UInt32($0.count))) }
        return withUnsafeBytes(of: UInt32(data.count).bigEndian, Array.init) + body + withUnsafeBytes(of: crc.bigEndian, Array.init)
    }
    let header =
        withUnsafeBytes(of: UInt32(width).bigEndian, Array.init) + withUnsafeBytes(of: UInt32(height).bigEndian, Array.init)
        + [8, 2, 0, 0, 0]
    var stream = z_stream()
    guard deflateInit_(&stream, Z_BEST_SPEED, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { throw POSIXError(.EIO) }
    defer { deflateEnd(&stream) }
    var row = [UInt8](repeating: 0, count: 1 + width * 3)  // filter byte "none", then the pixels
    var compressed = [UInt8]()
    var output = [UInt8](repeating: 0, count: 1 << 16)
    for y in 0...height {
        let flush = y == height ? Z_FINISH : Z_NO_FLUSH
        try row.withUnsafeMutableBufferPointer { input in
            stream.next_in = input.baseAddress
            stream.avail_in = y == height ? 0 : UInt32(input.count)
            repeat {
                try output.withUnsafeMutableBufferPointer { out in
                    stream.next_out = out.baseAddress
                    stream.avail_out = UInt32(out.count)
                    guard deflate(&stream, flush) != Z_STREAM_ERROR else { throw POSIXError(.EIO) }
                    compressed += out[..<(out.count - Int(stream.avail_out))]
                }
            } while stream.avail_out == 0 || (flush == Z_FINISH && stream.avail_in > 0)
        }
    }
    let png = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IDAT", compressed) + chunk("IEND", [])
    try Data(png).write(to: URL(fileURLWithPath: path))
}
