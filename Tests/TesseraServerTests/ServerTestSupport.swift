import Foundation
import HummingbirdTesting
import NIOCore
import TesseraCodecs
import TesseraCore
@testable import TesseraServer

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
        // Under `make sanitize` a debug build runs several times slower, the whole suite at once on
        // two cores: 30 s to answer is not enough there, and no test here is about that deadline
        // unless it sets its own.
        if ProcessInfo.processInfo.environment["TESSERA_SANITIZER"] != nil { configuration.requestTimeout = .seconds(600) }
        configure(&configuration)
        return try TesseraServer(configuration: configuration)
    }

    /// A deterministic RGB pattern: gradients plus a fine checker, so any misplaced pixel shows.
    static func pattern(width: Int, height: Int) -> PixelBuffer {
        var bytes = [UInt8]()
        bytes.reserveCapacity(width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let checker: UInt8 = ((x / 8 + y / 8) % 2 == 0) ? 40 : 0
                bytes += [UInt8(x * 255 / max(1, width - 1)) / 2 + checker, UInt8(y * 255 / max(1, height - 1)) / 2 + checker,
                          UInt8((x + y) % 256) / 2]
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

/// The largest difference of any channel of any pixel between two same-sized images.
func maximumDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Int {
    precondition(a.size == b.size && a.format == b.format)
    return zip(a.bytes, b.bytes).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
}

/// The mean difference, in 8-bit levels, over every channel of every pixel of two same-sized images.
func meanDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
    precondition(a.size == b.size && a.format == b.format)
    return Double(zip(a.bytes, b.bytes).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(max(a.bytes.count, 1))
}
