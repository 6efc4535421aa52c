public import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An ``ObjectStoring`` over a local directory: a key is a file's path below `root`.
///
/// Writes go to a hidden temporary file (`.tessera-put-…`) in the destination's directory and are
/// renamed into place, so readers never see half an object; ``create(_:_:contentType:)`` links the
/// temporary file to its name, which fails if the name exists, so two processes racing for one key
/// get one winner, as with S3's `If-None-Match: *`. Listings skip the hidden files.
public struct FileObjectStore: ObjectStoring {
    /// The directory keys are relative to, without a trailing `/`.
    public let root: String
    /// Objects per ``list(prefix:continuation:)`` page.
    public var pageSize = 1000

    /// A store over the directory at `root` (a trailing `/` is dropped). Nothing is checked or created
    /// until the first request; a `put` creates the directories its key needs.
    public init(root: String) {
        self.root = root.hasSuffix("/") && root.count > 1 ? String(root.dropLast()) : root
    }

    public func get(_ key: String, range: Range<Int>?) async throws -> Data {
        let path = try self.path(key)
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(errno, key) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw failure(errno, key) }
        guard status.st_mode & S_IFMT == S_IFREG else { throw ObjectStorageError.notFound(key: key) }
        let size = Int(status.st_size)
        let wanted = range.map { $0.clamped(to: 0..<size) } ?? 0..<size
        var data = Data(count: wanted.count)
        var done = 0
        while done < wanted.count {
            let read = data.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + done, wanted.count - done, off_t(wanted.lowerBound + done)) }
            if read < 0, errno == EINTR { continue }
            guard read > 0 else { throw read == 0 ? ObjectStorageError.io("\(key) shrank while read") : failure(errno, key) }
            done += read
        }
        return data
    }

    public func head(_ key: String) async throws -> ObjectMetadata? {
        var status = stat()
        guard stat(try path(key), &status) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw failure(errno, key)
        }
        guard status.st_mode & S_IFMT == S_IFREG else { return nil }
        let modified = Date(timeIntervalSince1970: Double(status.st_mtim.tv_sec) + Double(status.st_mtim.tv_nsec) / 1e9)
        // Size and modification time, as nginx makes its ETags.
        let etag = "\"\(String(status.st_mtim.tv_sec, radix: 16))-\(String(status.st_size, radix: 16))\""
        return ObjectMetadata(key: key, size: Int(status.st_size), etag: etag, lastModified: modified)
    }

    public func put(_ key: String, _ data: Data, contentType: String?) async throws {
        let destination = try path(key)
        let temporary = try writeTemporary(data, for: destination, key: key)
        guard rename(temporary, destination) == 0 else {
            let error = errno
            unlink(temporary)
            throw failure(error, key)
        }
    }

    public func create(_ key: String, _ data: Data, contentType: String?) async throws -> Bool {
        let destination = try path(key)
        let temporary = try writeTemporary(data, for: destination, key: key)
        defer { unlink(temporary) }
        guard link(temporary, destination) == 0 else {
            if errno == EEXIST { return false }
            throw failure(errno, key)
        }
        return true
    }

    public func list(prefix: String, continuation: String?) async throws -> ObjectListing {
        try ObjectKey.validate(prefix: prefix)
        // Only the directory the prefix names (or lies in) needs walking.
        let directory = prefix.hasSuffix("/") ? String(prefix.dropLast()) : prefix.split(separator: "/").dropLast().joined(separator: "/")
        var keys: [String] = []
        walk(directory.isEmpty ? root : root + "/" + directory, key: directory) { key in
            if key.hasPrefix(prefix), continuation.map({ key > $0 }) ?? true { keys.append(key) }
        }
        keys.sort()
        var objects: [ObjectMetadata] = []
        for key in keys.prefix(pageSize) {
            if let metadata = try await head(key) { objects.append(metadata) }
        }
        return ObjectListing(objects: objects, continuation: keys.count > pageSize ? keys[pageSize - 1] : nil)
    }

    public func delete(_ key: String) async throws {
        let path = try self.path(key)
        guard unlink(path) == 0 || errno == ENOENT || errno == ENOTDIR else { throw failure(errno, key) }
        // Empty directories left behind go too, up to the root, so a deleted pyramid leaves nothing.
        var directory = key.split(separator: "/").dropLast()
        while !directory.isEmpty, rmdir(root + "/" + directory.joined(separator: "/")) == 0 { directory = directory.dropLast() }
    }

    // MARK: - Files

    private func path(_ key: String) throws(ObjectStorageError) -> String {
        try ObjectKey.validate(key)
        return root + "/" + key
    }

    private func writeTemporary(_ data: Data, for destination: String, key: String) throws -> String {
        let directory = String(destination[..<destination.lastIndex(of: "/")!])
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw ObjectStorageError.io("cannot create the directory for \(key)")
        }
        let temporary = directory + "/.tessera-put-" + UUID().uuidString
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw failure(errno, key) }
        defer { close(descriptor) }
        var written = 0
        while written < data.count {
            let count = data.withUnsafeBytes { write(descriptor, $0.baseAddress! + written, data.count - written) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                let error = errno
                unlink(temporary)
                throw failure(error, key)
            }
            written += count
        }
        return temporary
    }

    /// Calls `found` with the key of every regular file below `path` (whose key is `key`),
    /// skipping hidden names (temporary files).
    private func walk(_ path: String, key: String, _ found: (String) -> Void) {
        guard let directory = opendir(path) else { return }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name.hasPrefix(".") { continue }
            let child = key.isEmpty ? name : key + "/" + name
            switch Int32(entry.pointee.d_type) {
            case Int32(DT_DIR): walk(path + "/" + name, key: child, found)
            case Int32(DT_REG): found(child)
            default: break
            }
        }
    }

    private func failure(_ code: Int32, _ key: String) -> ObjectStorageError {
        switch code {
        case ENOENT, ENOTDIR: .notFound(key: key)
        default: .io("\(key): \(String(cString: strerror(code)))")
        }
    }
}
