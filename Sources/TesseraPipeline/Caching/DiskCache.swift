public import FoundationEssentials
import TesseraCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The default ``DataCaching``: one file per entry, named by the SHA-256 of its key, with a small
/// metadata file beside it and an index of all entries.
///
/// - The size limit holds at every write: least-recently-used entries are deleted *before* a new
///   one is written, so the data files never exceed ``sizeLimit`` (the metadata and index come on
///   top and are small).
/// - Entries expire ``timeToLive`` after they were stored (7 days by default).
/// - Writes go to a temporary file renamed into place, so a crash never leaves a partial entry that
///   is later served; an entry whose file is missing or of the wrong size is dropped on lookup.
/// - Without libcrypto (which names the files) the cache is inert: nothing is found or kept, and
///   ``unavailableReason`` says why.
/// - The index survives restarts; if it is missing or unreadable it is rebuilt from the metadata files.
///   It is saved every few dozen changes (each entry's own metadata file is written at once), and
///   entries newer than the saved index are picked up from their metadata files on the next start.
public actor DiskCache: DataCaching {
    struct Entry: Codable {
        var key: String
        var byteCount: Int
        var storedAt: Date
        var lastAccess: Date
        var freshUntil: Date?
        var validators: HTTPValidators
    }

    /// The directory holding the entries, their metadata files and the index.
    public nonisolated let directory: URL
    /// Most bytes of cached data on disk.
    public nonisolated let sizeLimit: Int
    /// Seconds after storing that an entry is deleted, whatever its freshness.
    public nonisolated let timeToLive: TimeInterval
    /// Why the cache keeps nothing (libcrypto could not be loaded), or nil when it works.
    public nonisolated let unavailableReason: String?
    private let now: @Sendable () -> Date
    private var entries: [String: Entry] = [:]
    private var totalSize = 0
    private var unsavedChanges = 0
    private var lastSave = Date.distantPast

    /// The user's cache directory for Tessera: `$XDG_CACHE_HOME/tessera` or `~/.cache/tessera`.
    public static var defaultDirectory: URL {
        if let xdg = ProcessInfo.processInfo.environment["XDG_CACHE_HOME"], !xdg.isEmpty {
            return URL(fileURLWithPath: xdg).appendingPathComponent("tessera")
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/tessera")
    }

    /// A cache in `directory`, created if missing, with the index read from a previous run.
    /// - Parameters:
    ///   - directory: where entries are kept; by default the user's cache directory (``defaultDirectory``).
    ///   - sizeLimit: the most bytes of cached data on disk; 150 MiB by default.
    ///   - timeToLive: seconds an entry is kept after it was stored, fresh or not; 7 days by default.
    ///   - now: the clock, for tests.
    public init(
        directory: URL = DiskCache.defaultDirectory, sizeLimit: Int = 150 << 20,
        timeToLive: TimeInterval = 7 * 24 * 3600, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.directory = directory
        self.sizeLimit = sizeLimit
        self.timeToLive = timeToLive
        self.now = now
        unavailableReason = SHA256Digest.unavailableReason
        guard unavailableReason == nil else { return }
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let (entries, totalSize) = Self.loadIndex(in: directory)
        self.entries = entries
        self.totalSize = totalSize
    }

    /// Bytes of cached data on disk.
    public var size: Int { totalSize }

    /// Entries held.
    public var count: Int { entries.count }

    public func lookup(_ key: String) -> CachedData? {
        // An inert cache has no entries, so this covers it too.
        guard var entry = entries[key] else { return nil }
        let current = now()
        let url = dataURL(for: key)
        // stat, not FileManager's attributes: their size is a UInt without Foundation in the process
        // (as in `tessera`) and an NSNumber with it, and a cast that holds for one fails for the other.
        let onDisk = FileIdentity(path: url.path)?.byteCount
        guard current.timeIntervalSince(entry.storedAt) < timeToLive, onDisk == entry.byteCount else {
            remove(key)
            return nil
        }
        entry.lastAccess = current
        entries[key] = entry
        return CachedData(
            key: key, fileURL: url, byteCount: entry.byteCount,
            isFresh: entry.freshUntil.map { current < $0 } ?? true, validators: entry.validators)
    }

    public func store(_ data: Data, for key: String, validators: HTTPValidators, maxAge: TimeInterval?) {
        remove(key)
        guard unavailableReason == nil, data.count <= sizeLimit else { return }
        while totalSize + data.count > sizeLimit,
            let victim = entries.values.min(by: { $0.lastAccess < $1.lastAccess })
        {
            remove(victim.key)
        }
        let current = now()
        let entry = Entry(
            key: key, byteCount: data.count, storedAt: current, lastAccess: current,
            freshUntil: maxAge.map { current.addingTimeInterval($0) }, validators: validators)
        do {
            try Self.writeAtomically(data, to: dataURL(for: key))
            try Self.writeAtomically(try JSONEncoder().encode(entry), to: metadataURL(for: key))
        } catch {
            try? FileManager.default.removeItem(at: dataURL(for: key))
            return
        }
        entries[key] = entry
        totalSize += data.count
        saveIndex()
    }

    public func refresh(_ key: String, validators: HTTPValidators, maxAge: TimeInterval?) {
        guard var entry = entries[key] else { return }
        let current = now()
        entry.storedAt = current
        entry.lastAccess = current
        entry.freshUntil = maxAge.map { current.addingTimeInterval($0) }
        if !validators.isEmpty { entry.validators = validators }
        entries[key] = entry
        try? Self.writeAtomically(try JSONEncoder().encode(entry), to: metadataURL(for: key))
        saveIndex()
    }

    /// Deletes the entry for `key` and its files, if there is one.
    public func remove(_ key: String) {
        guard unavailableReason == nil else { return }
        if let entry = entries.removeValue(forKey: key) { totalSize -= entry.byteCount }
        try? FileManager.default.removeItem(at: dataURL(for: key))
        try? FileManager.default.removeItem(at: metadataURL(for: key))
        saveIndex()
    }

    /// Deletes every entry.
    public func removeAll() {
        for key in Array(entries.keys) { remove(key) }
    }

    // MARK: - Files

    nonisolated func dataURL(for key: String) -> URL { directory.appendingPathComponent(Self.fileName(for: key)) }

    nonisolated func metadataURL(for key: String) -> URL {
        directory.appendingPathComponent(Self.fileName(for: key) + ".meta")
    }

    /// The hex SHA-256 of the key. Only an inert cache (which never touches its files) could
    /// reach the fallback, a name no entry ever has.
    static func fileName(for key: String) -> String { SHA256Digest.hex(key) ?? "unhashable" }

    private var indexURL: URL { directory.appendingPathComponent("index.json") }

    /// Saves the index when enough has changed since the last save; rewriting it on every store
    /// would make filling the cache quadratic.
    private func saveIndex() {
        unsavedChanges += 1
        if unsavedChanges >= 64 || Date().timeIntervalSince(lastSave) > 2 { flush() }
    }

    /// Writes the index now.
    public func flush() {
        try? Self.writeAtomically(try JSONEncoder().encode(Array(entries.values)), to: indexURL)
        unsavedChanges = 0
        lastSave = Date()
    }

    private static func writeAtomically(_ data: Data, to url: URL) throws {
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        try data.write(to: temporary)
        if rename(temporary.path, url.path) != 0 {
            try? FileManager.default.removeItem(at: temporary)
            throw CocoaError(.fileWriteUnknown)
        }
    }

    /// Reads the index, or rebuilds it from the metadata files; keeps only entries whose data file
    /// exists with the recorded size, and clears leftovers (temporary files, orphans).
    private static func loadIndex(in directory: URL) -> ([String: Entry], Int) {
        let manager = FileManager.default
        let decoder = JSONDecoder()
        var candidates: [Entry] = []
        if let data = try? Data(contentsOf: directory.appendingPathComponent("index.json")),
            let index = try? decoder.decode([Entry].self, from: data)
        {
            candidates = index
        }
        // Entries the saved index does not know (stored since it was written, or all of them when
        // it is lost) come from their metadata files.
        let known = Set(candidates.map { fileName(for: $0.key) + ".meta" })
        let files = (try? manager.contentsOfDirectory(atPath: directory.path)) ?? []
        for file in files where file.hasSuffix(".meta") && !known.contains(file) {
            if let data = try? Data(contentsOf: directory.appendingPathComponent(file)),
                let entry = try? decoder.decode(Entry.self, from: data)
            {
                candidates.append(entry)
            }
        }
        var entries: [String: Entry] = [:]
        var total = 0
        for entry in candidates {
            let path = directory.appendingPathComponent(fileName(for: entry.key)).path
            guard let size = FileIdentity(path: path)?.byteCount, size == entry.byteCount else { continue }
            entries[entry.key] = entry
            total += size
        }
        // Only files of the cache's own naming are touched: a directory shared with other files is safe.
        let valid = Set(entries.keys.map { fileName(for: $0) })
        for file in (try? manager.contentsOfDirectory(atPath: directory.path)) ?? [] {
            let base = file.hasSuffix(".meta") ? String(file.dropLast(5)) : file
            let isOwnEntry = base.count == 64 && base.allSatisfy(\.isHexDigit)
            let isTemporary = file.hasPrefix(".") && file.hasSuffix(".tmp")
            if (isOwnEntry && !valid.contains(base)) || isTemporary {
                try? manager.removeItem(at: directory.appendingPathComponent(file))
            }
        }
        return (entries, total)
    }
}
