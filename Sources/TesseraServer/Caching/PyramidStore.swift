#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FoundationEssentials
import Synchronization
import TesseraCodecs
import TesseraCore
import TesseraTiles

/// The two pyramids the server builds: IIIF tiles (what info.json lists, also composed into regions)
/// and Deep Zoom tiles (as `vips dzsave` and `tessera tile --layout dzi` cut them).
enum PyramidKind: String, Sendable, CaseIterable {
    case iiif
    case deepZoom = "dzi"
}

/// A complete pyramid on disk.
struct BuiltPyramid: Sendable {
    /// `{cache}/{source identity}`.
    let directory: String
    let layout: any TileLayout
    let fileExtension: String

    /// The tile file's absolute path.
    func tilePath(reduction: Int, column: Int, row: Int) -> String {
        directory + "/" + layout.tilePath(reduction: reduction, column: column, row: row, fileExtension: fileExtension)
    }
}

/// The derivative cache: pyramids built on first use with the streaming builder, one directory per
/// source identity (device, inode, size, mtime), so a changed file is rebuilt and the old pyramid
/// ages out.
///
/// - Concurrent requests for the same pyramid wait on one build; the build goes on when they give up
///   (another request will want it).
/// - The builder stages everything in a hidden directory and moves the descriptor into place last,
///   so a build killed at any point leaves no pyramid that has its descriptor; the
///   leftovers are removed at start-up.
/// - Whole pyramids are evicted, least recently used first, when the total passes the byte limit.
///   Use survives restarts through the directory's modification time, refreshed on first use.
final class PyramidStore: Sendable {
    let directory: String
    let byteLimit: Int
    private let options: PyramidOptions
    private let tileSize: Int
    private let executor: WorkExecutor
    private let metrics: ServerMetrics
    private let state = Mutex(State())

    private struct State {
        /// Bytes of every pyramid directory, by identity, in order of use.
        var usage = LRUCache<String, Int>(costLimit: .max)
        /// Identities whose last use was written to disk since start-up.
        var touched: Set<String> = []
    }
    private let builds = SingleFlight<BuiltPyramid>()

    init(directory: String, byteLimit: Int, tileSize: Int, jpegQuality: Int, sourcePixelLimit: Int,
         colorManagement: ColorManagement = .convertToSRGB, executor: WorkExecutor, metrics: ServerMetrics) throws {
        self.directory = directory
        self.byteLimit = byteLimit
        self.tileSize = tileSize
        self.executor = executor
        self.metrics = metrics
        options = PyramidOptions(
            layout: .deepZoom(), encoding: .jpeg(quality: jpegQuality), jobs: executor.threadCount,
            maximumPixelCount: sourcePixelLimit, colorManagement: colorManagement)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let existing = Self.scan(directory)
        state.withLock { state in
            for entry in existing.sorted(by: { $0.lastUse < $1.lastUse }) {
                _ = state.usage.insert(entry.bytes, for: entry.name, cost: entry.bytes)
            }
        }
    }

    /// Bytes of pyramids held now.
    var totalBytes: Int { state.withLock { $0.usage.totalCost } }

    /// The complete pyramid of `kind` for `source`, building it first if there is none.
    func pyramid(_ kind: PyramidKind, for source: ResolvedSource, imageSize: PixelSize) async throws -> BuiltPyramid {
        if let built = builtPyramid(kind, for: source, imageSize: imageSize) { return built }
        metrics.recordCache(tier: "pyramid", hit: false)
        let pyramid = BuiltPyramid(
            directory: directory + "/" + source.key, layout: layout(kind, imageSize: imageSize),
            fileExtension: kind == .deepZoom ? "jpeg" : "jpg")
        return try await builds.value(for: source.key + "/" + kind.rawValue) {
            try await self.build(kind, source: source, into: pyramid)
        }
    }

    /// The complete pyramid of `kind` for `source` if there is one now; nil (and nothing started) if not.
    func builtPyramid(_ kind: PyramidKind, for source: ResolvedSource, imageSize: PixelSize) -> BuiltPyramid? {
        let pyramid = BuiltPyramid(
            directory: directory + "/" + source.key, layout: layout(kind, imageSize: imageSize),
            fileExtension: kind == .deepZoom ? "jpeg" : "jpg")
        guard access(pyramid.directory + "/" + descriptor(kind), F_OK) == 0 else { return nil }
        metrics.recordCache(tier: "pyramid", hit: true)
        markUsed(source.key)
        return pyramid
    }

    private func build(_ kind: PyramidKind, source: ResolvedSource, into pyramid: BuiltPyramid) async throws -> BuiltPyramid {
        let name = source.identity.description
        var options = self.options
        options.layout = kind == .deepZoom ? .deepZoom() : .iiif(tileSize: tileSize, baseURL: "")
        let start = ContinuousClock.now
        let summary = try await PyramidBuilder.build(
            .file(source.path), name: self.name(kind), outputDirectory: pyramid.directory,
            options: options, executor: executor)
        metrics.recordPyramidBuild(duration: ContinuousClock.now - start)
        state.withLock { state in
            let previous = state.usage.peek(name) ?? 0
            _ = state.usage.insert(previous + summary.bytes, for: name, cost: previous + summary.bytes)
        }
        markUsed(name)
        evictIfNeeded(keeping: name)
        return pyramid
    }

    /// The pyramid's name inside the source's directory: IIIF ones by tile size, so a server
    /// restarted with another tile size never serves tiles cut for the old one.
    private func name(_ kind: PyramidKind) -> String {
        kind == .deepZoom ? "dzi" : "iiif-" + String(tileSize)
    }

    /// The file whose presence means the pyramid is complete: the builder writes it last.
    private func descriptor(_ kind: PyramidKind) -> String {
        kind == .deepZoom ? "dzi.dzi" : name(kind) + "/info.json"
    }

    private func layout(_ kind: PyramidKind, imageSize: PixelSize) -> any TileLayout {
        switch kind {
        case .iiif: IIIFLayout(imageSize: imageSize, name: name(kind), tileSize: tileSize, baseURL: "")
        case .deepZoom: DeepZoomLayout(imageSize: imageSize, name: "dzi")
        }
    }

    /// Moves the pyramid to most recently used, and the first time since start-up also on disk.
    private func markUsed(_ name: String) {
        let first = state.withLock { state -> Bool in
            _ = state.usage.value(for: name)
            return state.touched.insert(name).inserted
        }
        if first { _ = utimensat(AT_FDCWD, directory + "/" + name, nil, 0) }
    }

    /// Removes least recently used pyramids (never `keeping`, never one being built) until the
    /// total is within the limit.
    private func evictIfNeeded(keeping: String) {
        let busy = Set(builds.keys.map { String($0.split(separator: "/").first ?? "") })
        let victims = state.withLock { state -> [String] in
            var victims: [String] = []
            var total = state.usage.totalCost
            guard total > byteLimit else { return [] }
            for name in state.usage.keysByRecency where total > byteLimit && name != keeping && !busy.contains(name) {
                total -= state.usage.removeValue(for: name) ?? 0
                state.touched.remove(name)
                victims.append(name)
            }
            return victims
        }
        for name in victims {
            // Renamed first, so the pyramid disappears at once and whole; deleted afterwards.
            let trash = directory + "/.trash-" + UUID().uuidString
            if rename(directory + "/" + name, trash) == 0 { try? FileManager.default.removeItem(atPath: trash) }
        }
    }

    /// The pyramids already on disk, with their bytes and last use; removes what interrupted builds
    /// and evictions left behind.
    private static func scan(_ directory: String) -> [(name: String, bytes: Int, lastUse: Int64)] {
        let manager = FileManager.default
        guard let names = try? manager.contentsOfDirectory(atPath: directory) else { return [] }
        var found: [(name: String, bytes: Int, lastUse: Int64)] = []
        for name in names {
            let path = directory + "/" + name
            if name.hasPrefix(".trash-") {
                try? manager.removeItem(atPath: path)
                continue
            }
            guard !name.hasPrefix("."), let lastUse = modificationNanoseconds(ofDirectory: path) else { continue }
            for entry in (try? manager.contentsOfDirectory(atPath: path)) ?? [] where entry.hasPrefix(".tessera-") {
                try? manager.removeItem(atPath: path + "/" + entry)
            }
            found.append((name, byteCount(ofTree: path), lastUse))
        }
        return found
    }

    /// Bytes of the regular files under `path`.
    static func byteCount(ofTree path: String) -> Int {
        guard let directory = opendir(path) else { return 0 }
        defer { closedir(directory) }
        var total = 0
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name == "." || name == ".." { continue }
            let child = path + "/" + name
            var info = stat()
            guard lstat(child, &info) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFDIR: total += byteCount(ofTree: child)
            case S_IFREG: total += Int(info.st_size)
            default: break
            }
        }
        return total
    }
}

/// A directory's modification time in nanoseconds (a pyramid's last use); nil if not a directory.
private func modificationNanoseconds(ofDirectory path: String) -> Int64? {
    var info = stat()
    guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else { return nil }
    return Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
}
