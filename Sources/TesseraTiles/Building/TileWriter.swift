import Foundation
import TesseraCodecs
import TesseraCore

/// Encodes and writes tiles on up to `jobs` threads while the builder goes on decoding. A tile
/// waits for a free slot before it is queued, so at most `jobs` tiles are in flight and memory
/// stays bounded however fast rows arrive.
final class TileWriter: @unchecked Sendable {
    // @unchecked: the mutable counters and the directory set are only touched under `lock`.
    private let root: URL
    private let encoding: ImageEncoding
    private let queue = DispatchQueue(label: "tessera.tiles", attributes: .concurrent)
    private let slots: DispatchSemaphore
    private let group = DispatchGroup()
    private let lock = NSLock()
    private var directories: Set<String> = []
    private var failure: (any Error)?
    private(set) var tileCount = 0
    private(set) var byteCount = 0

    init(root: URL, encoding: ImageEncoding, jobs: Int) {
        self.root = root
        self.encoding = encoding
        slots = DispatchSemaphore(value: max(1, jobs))
    }

    /// Queues `pixels` to be encoded once and written at every path in `paths`.
    func submit(_ pixels: PixelBuffer, paths: [String]) {
        slots.wait()
        group.enter()
        queue.async { [self] in
            defer {
                slots.signal()
                group.leave()
            }
            do {
                let data = try ImageEncoder.encode(pixels, as: encoding)
                for path in paths {
                    let url = root.appendingPathComponent(path)
                    try makeDirectory(url.deletingLastPathComponent())
                    try data.write(to: url)
                }
                lock.withLock {
                    tileCount += paths.count
                    byteCount += data.count * paths.count
                }
            } catch {
                lock.withLock { if failure == nil { failure = error } }
            }
        }
    }

    /// Waits for every queued tile; throws the first failure.
    func finish() throws {
        group.wait()
        if let failure = lock.withLock({ failure }) { throw failure }
    }

    private func makeDirectory(_ url: URL) throws {
        let path = url.path
        if lock.withLock({ directories.contains(path) }) { return }
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        lock.withLock { _ = directories.insert(path) }
    }
}
