import FoundationEssentials
import NIOCore
import TesseraCodecs
import TesseraCore
import TesseraIIIF
import TesseraStorage
import TesseraTiles
import TesseraViewing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The two pyramids the server builds: IIIF tiles (what info.json lists, also composed into regions)
/// and Deep Zoom tiles (as `vips dzsave` and `tessera tile --layout dzi` cut them).
enum PyramidKind: String, Sendable, CaseIterable {
    case iiif
    case deepZoom = "dzi"
}

/// Where pyramids come from: ``PyramidStore`` (a directory of this server's) or
/// ``SharedPyramidStore`` (an object store every server shares).
protocol PyramidStoring: Sendable {
    /// The complete pyramid of `kind` for `source`, building it first if there is none.
    func pyramid(_ kind: PyramidKind, for source: ResolvedSource, imageSize: PixelSize) async throws -> BuiltPyramid
    /// The complete pyramid of `kind` for `source` if one is known now; nil (and nothing started) if not.
    func builtPyramid(_ kind: PyramidKind, for source: ResolvedSource, imageSize: PixelSize) -> BuiltPyramid?
}

/// A complete pyramid: in a directory, or under a prefix of an object store (the library's reader).
typealias BuiltPyramid = StoredPyramid

extension StoredPyramid {
    /// The stored tile's bytes as a response body.
    func body(reduction: Int, column: Int, row: Int) async throws -> ByteBuffer {
        ByteBuffer(bytes: try await encodedTile(reduction: reduction, column: column, row: row))
    }
}

/// How the server's pyramids are cut, named and encoded: the same for a directory of its own and for
/// a store it shares, so any server finds the pyramids another built.
struct PyramidRecipe: Sendable {
    let tileSize: Int
    let options: PyramidOptions

    init(tileSize: Int, jpegQuality: Int, sourcePixelLimit: Int, colorManagement: ColorManagement, jobs: Int) {
        self.tileSize = tileSize
        var options = PyramidOptions(
            layout: .deepZoom(), encoding: Self.tileEncoding(jpegQuality: jpegQuality), jobs: jobs,
            maximumPixelCount: sourcePixelLimit, colorManagement: colorManagement)
        // A pyramid that looks complete after a power loss is complete: one sync per build.
        options.isDurable = true
        self.options = options
    }

    /// How every tile is encoded. A tile the server makes from the source before its pyramid
    /// exists is encoded the same way (``ImageService``), so both have the same bytes.
    static func tileEncoding(jpegQuality: Int) -> EncodingFormat { .jpeg(quality: jpegQuality) }

    /// The pyramid's name inside the source's directory: IIIF ones by tile size, so a server
    /// restarted with another tile size never serves tiles cut for the old one.
    func name(_ kind: PyramidKind) -> String {
        kind == .deepZoom ? "dzi" : "iiif-" + String(tileSize)
    }

    /// The file whose presence means the pyramid is complete: the builder writes it last.
    func descriptor(_ kind: PyramidKind) -> String {
        kind == .deepZoom ? "dzi.dzi" : name(kind) + "/info.json"
    }

    func layout(_ kind: PyramidKind, imageSize: PixelSize) -> any TileLayout {
        switch kind {
        case .iiif: IIIFLayout(imageSize: imageSize, name: name(kind), tileSize: tileSize, baseURL: "")
        case .deepZoom: DeepZoomLayout(imageSize: imageSize, name: "dzi")
        }
    }

    /// The complete pyramid of `kind` at `location`.
    func pyramid(_ kind: PyramidKind, at location: BuiltPyramid.Location, imageSize: PixelSize, executor: WorkExecutor) -> BuiltPyramid {
        BuiltPyramid(
            location: location, layout: layout(kind, imageSize: imageSize), fileExtension: kind == .deepZoom ? "jpeg" : "jpg",
            executor: executor)
    }

    /// The builder's options for `kind`, of page `pageIndex` (from 0).
    func options(_ kind: PyramidKind, pageIndex: Int) -> PyramidOptions {
        var options = self.options
        options.pageIndex = pageIndex
        options.layout = kind == .deepZoom ? .deepZoom() : .iiif(tileSize: tileSize, baseURL: "")
        return options
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
final class PyramidStore: PyramidStoring {
    let directory: String
    let byteLimit: Int
    private let recipe: PyramidRecipe
    private let executor: WorkExecutor
    private let metrics: ServerMetrics
    private let state = Locked(State())

    private struct State {
        /// Bytes of every pyramid directory, by identity, in order of use.
        var usage = LRUCache<String, Int>(costLimit: .max)
        /// Identities whose last use was written to disk since start-up.
        var touched: Set<String> = []
        /// Files of every pyramid directory, by identity (the bytes are in `usage`).
        var files: [String: Int] = [:]
    }
    private let builds = SingleFlight<Bool>()

    init(
        directory: String, byteLimit: Int, tileSize: Int, jpegQuality: Int, sourcePixelLimit: Int,
        colorManagement: ColorManagement = .convertToSRGB, executor: WorkExecutor, metrics: ServerMetrics
    ) throws {
        self.directory = directory
        self.byteLimit = byteLimit
        self.executor = executor
        self.metrics = metrics
        recipe = PyramidRecipe(
            tileSize: tileSize, jpegQuality: jpegQuality, sourcePixelLimit: sourcePixelLimit,
            colorManagement: colorManagement, jobs: executor.threadCount)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let existing = Self.scan(directory)
        state.withLock { state in
            for entry in existing.sorted(by: { $0.lastUse < $1.lastUse }) {
                _ = state.usage.insert(entry.usage.bytes, for: entry.name, cost: entry.usage.bytes)
                state.files[entry.name] = entry.usage.files
            }
        }
        for entry in existing { metrics.recordPyramidDisk(source: entry.name, usage: entry.usage) }
    }

    /// Bytes of pyramids held now.
    var totalBytes: Int { state.withLock { $0.usage.totalCost } }

    /// The complete pyramid of `kind` for `source`, building it first if there is none.
    func pyramid(_ kind: PyramidKind, for source: ResolvedSource, imageSize: PixelSize) async throws -> BuiltPyramid {
        if let built = builtPyramid(kind, for: source, imageSize: imageSize) { return built }
        metrics.recordCache(tier: "pyramid", hit: false)
        let output = directory + "/" + source.key
        _ = try await builds.value(for: source.key + "/" + kind.rawValue) {
            try await self.build(kind, source: source, into: output)
        }
        return recipe.pyramid(kind, at: .directory(output), imageSize: imageSize, executor: executor)
    }

    /// The complete pyramid of `kind` for `source` if there is one now; nil (and nothing started) if not.
    func builtPyramid(_ kind: PyramidKind, for source: ResolvedSource, imageSize: PixelSize) -> BuiltPyramid? {
        guard access(directory + "/" + source.key + "/" + recipe.descriptor(kind), F_OK) == 0 else { return nil }
        metrics.recordCache(tier: "pyramid", hit: true)
        markUsed(source.key)
        return recipe.pyramid(kind, at: .directory(directory + "/" + source.key), imageSize: imageSize, executor: executor)
    }

    private func build(_ kind: PyramidKind, source: ResolvedSource, into output: String) async throws -> Bool {
        let name = source.identity.description
        let start = ContinuousClock.now
        _ = try await PyramidBuilder.build(
            source.input, name: recipe.name(kind), outputDirectory: output,
            // Behind the requests: builds run in the background while the source answers.
            options: recipe.options(kind, pageIndex: source.pageIndex), priority: .low, executor: executor)
        metrics.recordPyramidBuild(duration: ContinuousClock.now - start)
        // Read back from the directory (every pyramid of the source, descriptors included): a few
        // milliseconds of `stat`s beside the seconds of the build.
        let usage = Self.usage(ofTree: output)
        state.withLock { state in
            _ = state.usage.insert(usage.bytes, for: name, cost: usage.bytes)
            state.files[name] = usage.files
        }
        // Per source, what deriving it cost on disk (its tiles and descriptor).
        metrics.recordPyramidDisk(source: name, usage: usage)
        markUsed(name)
        evictIfNeeded(keeping: name)
        return true
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
                state.files.removeValue(forKey: name)
                victims.append(name)
            }
            return victims
        }
        for name in victims {
            metrics.forgetPyramidDisk(source: name)
            // Renamed first, so the pyramid disappears at once and whole; deleted afterwards.
            let trash = directory + "/.trash-" + UUID().uuidString
            if rename(directory + "/" + name, trash) == 0 { try? FileManager.default.removeItem(atPath: trash) }
        }
    }

    /// The pyramids already on disk, with their bytes and last use; removes what interrupted builds
    /// and evictions left behind.
    private static func scan(_ directory: String) -> [(name: String, usage: DiskUsage, lastUse: Int64)] {
        let manager = FileManager.default
        guard let names = try? manager.contentsOfDirectory(atPath: directory) else { return [] }
        var found: [(name: String, usage: DiskUsage, lastUse: Int64)] = []
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
            found.append((name, usage(ofTree: path), lastUse))
        }
        return found
    }

    /// Bytes and number of the regular files under `path`.
    static func usage(ofTree path: String) -> DiskUsage {
        guard let directory = opendir(path) else { return DiskUsage() }
        defer { closedir(directory) }
        var total = DiskUsage()
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name == "." || name == ".." { continue }
            let child = path + "/" + name
            var info = stat()
            guard lstat(child, &info) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFDIR: total.add(usage(ofTree: child))
            case S_IFREG: total.add(DiskUsage(bytes: Int(info.st_size), files: 1))
            default: break
            }
        }
        return total
    }
}

/// What pyramids hold on disk: bytes of files, and files.
struct DiskUsage: Sendable, Equatable {
    var bytes = 0
    var files = 0

    mutating func add(_ other: DiskUsage) {
        bytes += other.bytes
        files += other.files
    }
}

/// A directory's modification time in nanoseconds (a pyramid's last use); nil if not a directory.
private func modificationNanoseconds(ofDirectory path: String) -> Int64? {
    var info = stat()
    guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else { return nil }
    return Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
}
