import FoundationEssentials
public import TesseraCodecs
public import TesseraCore
public import TesseraStorage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A source an identifier named: a file under the root directory or an object in the root store,
/// and which version of it this is.
public struct ResolvedSource: Sendable, Hashable {
    /// The identifier as decoded: the path relative to the root, `/`-separated. Safe to show.
    public var relativePath: String
    /// The file's absolute path; nil for an object in a store. Never shown to a client.
    public var path: String?
    /// The object and its size, for a source in a store; nil for a file.
    public var object: ObjectByteRange?
    /// This version of the source (device and inode or the object's tag, size, modification time):
    /// a changed file is a new identity, so nothing cached for the old one is served for it.
    public var identity: FileIdentity
    /// `identity`'s name (and the page's, after the first), made once: the key of everything
    /// cached for this source.
    public private(set) var key: String
    /// The page a `{identifier};{n}` names (1-based, as in the URL), nil when none is named: the
    /// first page, or the image itself.
    public private(set) var page: Int?

    /// The image a slide keeps beside its levels that a `{identifier};{name}` names (`label`,
    /// `macro`, `thumbnail`), nil when none is named.
    public private(set) var associatedImage: String?

    /// Which page of a document is meant, from 0 (`DecodeOptions.pageIndex`).
    public var pageIndex: Int { (page ?? 1) - 1 }

    /// How IIIF names this source in a URL: the relative path percent-encoded (`/` as `%2F`), with
    /// `;n` when a page was named, `;name` when an associated image was.
    public var encodedIdentifier: String {
        PercentEncoding.encode(relativePath) + (page.map { ";\($0)" } ?? "") + (associatedImage.map { ";" + $0 } ?? "")
    }

    /// This source's associated image `name`, a distinct image with keys of its own.
    public func associatedImage(_ name: String) -> ResolvedSource {
        var associated = self
        associated.associatedImage = name
        associated.key = identity.description + ";" + name
        return associated
    }

    /// This source's page `page` (1-based), a distinct image with keys of its own after the first.
    public func page(_ page: Int) -> ResolvedSource {
        var paged = self
        paged.page = page
        paged.key = page > 1 ? identity.description + ";" + String(page) : identity.description
        return paged
    }

    /// A file under the root: `relativePath` as the client named it (decoded), `path` where it is.
    public init(relativePath: String, path: String, identity: FileIdentity) {
        self.relativePath = relativePath
        self.path = path
        self.identity = identity
        key = identity.description
    }

    /// An object in a store, read by byte ranges. Its identity is made of what the store says of
    /// this version: the key and entity tag hashed, the size, the last-modified time. Every server
    /// sharing the store computes the same one, so they share its pyramids.
    public init(relativePath: String, object: ObjectByteRange, metadata: ObjectMetadata) {
        self.relativePath = relativePath
        self.object = object
        let modified = metadata.lastModified.map { Int64($0.timeIntervalSince1970 * 1_000_000_000) } ?? 0
        identity = FileIdentity(
            device: 0, inode: EntityTag.hash((metadata.key + "\u{0}" + (metadata.etag ?? "")).utf8),
            byteCount: metadata.size, modificationNanoseconds: modified)
        key = identity.description
    }

    /// How the decoders read it: the file, or the object by ranges.
    public var input: ImageSource { object.map { .ranged($0) } ?? .file(path ?? "") }

    public static func == (a: Self, b: Self) -> Bool {
        a.key == b.key && a.relativePath == b.relativePath && a.path == b.path && a.page == b.page && a.associatedImage == b.associatedImage
    }
    public func hash(into hasher: inout Hasher) { hasher.combine(key) }
}

/// Why an identifier was refused. The message quotes the identifier, never a filesystem path.
public struct IdentifierError: TesseraError, Equatable {
    /// What was wrong with the identifier.
    public enum Reason: Sendable, Equatable {
        /// Malformed or hostile: a bad escape, `..`, an absolute path, a backslash, NUL, a dotfile.
        case invalid(String)
        /// No such file under the root (or it resolves outside it, which is reported the same way
        /// so a client learns nothing about the rest of the filesystem).
        case notFound
    }

    /// The identifier as the client sent it (quoted, shortened, in the message).
    public var identifier: String
    /// Why it was refused: ``Reason/invalid(_:)`` is a 400, ``Reason/notFound`` a 404.
    public var reason: Reason

    public var category: ErrorCategory {
        switch reason {
        case .invalid: .badInput
        case .notFound: .notFound
        }
    }

    public var description: String {
        let quoted = oneLine(String(identifier.prefix(200)))
        switch reason {
        case .invalid(let why): return "identifier \"\(quoted)\" \(why)"
        case .notFound: return "no file with identifier \"\(quoted)\""
        }
    }
}

/// Turns IIIF identifiers into files under a root, refusing anything that could name a file outside
/// it. Nothing is scanned ahead: each identifier is checked when it is asked for.
///
/// An identifier is the file's path relative to the root with `/` written `%2F`, as the IIIF spec
/// asks. It is percent-decoded exactly once; then every rule is applied to the decoded text, so no
/// encoding (`%2e%2e`, `%2E%2e`, `..%2f`) gets past them, and a `%` left after decoding (a second
/// layer of encoding, `%252e`) is refused outright rather than guessed at. Finally the path is
/// resolved with `realpath`, and a file whose real location (through any symlink) is not inside the
/// root's real location is reported as not found.
public struct IdentifierResolver: Sendable {
    /// The root's real absolute path, without a trailing slash.
    public let rootPath: String

    /// - Throws: ``IdentifierError`` (not found) when `root` is not a readable directory.
    public init(root: String) throws(IdentifierError) {
        guard let real = Self.realPath(root) else { throw IdentifierError(identifier: root, reason: .notFound) }
        var info = stat()
        guard stat(real, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw IdentifierError(identifier: root, reason: .notFound)
        }
        rootPath = real == "/" ? "" : real
    }

    /// The file `identifier` (raw, still percent-encoded, as it came in the URL path) names.
    /// A file's page: `{identifier};{n}` names page `n` (from 1) of the file `{identifier}` names,
    /// and `{identifier};{name}` its associated image `name` (``suffix(of:)``), unless a file is
    /// named so itself.
    public func resolve(_ identifier: String) throws(IdentifierError) -> ResolvedSource {
        do {
            return try resolveFile(identifier)
        } catch let error where error.reason == .notFound {
            guard let (file, suffix) = Self.suffix(of: identifier), let source = try? resolveFile(file) else { throw error }
            return source.applying(suffix)
        }
    }

    private func resolveFile(_ identifier: String) throws(IdentifierError) -> ResolvedSource {
        let relative = try Self.relativePath(of: identifier)
        let candidate = rootPath + "/" + relative
        guard let real = Self.realPath(candidate), real.hasPrefix(rootPath + "/"),
            let identity = FileIdentity(path: real)
        else { throw IdentifierError(identifier: identifier, reason: .notFound) }
        return ResolvedSource(relativePath: relative, path: real, identity: identity)
    }

    /// The directory `relative` (a path under the root, already decoded; empty for the root itself)
    /// names, by the identifiers' rules: its real absolute path.
    public func resolveDirectory(_ relative: String) throws(IdentifierError) -> String {
        guard !relative.isEmpty else { return rootPath.isEmpty ? "/" : rootPath }
        let checked = try Self.check(decoded: relative, identifier: relative)
        guard let real = Self.realPath(rootPath + "/" + checked), real.hasPrefix(rootPath + "/") else {
            throw IdentifierError(identifier: relative, reason: .notFound)
        }
        var info = stat()
        guard stat(real, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw IdentifierError(identifier: relative, reason: .notFound)
        }
        return real
    }

    /// The decoded relative path an identifier stands for, or why it is refused. Pure: no filesystem.
    public static func relativePath(of identifier: String) throws(IdentifierError) -> String {
        func refuse(_ why: String) -> IdentifierError { IdentifierError(identifier: identifier, reason: .invalid(why)) }
        guard !identifier.isEmpty else { throw refuse("is empty") }
        guard identifier.utf8.count <= 4096 else { throw refuse("is longer than 4096 bytes") }
        guard let decoded = PercentEncoding.decode(identifier) else { throw refuse("has a malformed %-escape or is not UTF-8") }
        if decoded.contains("%") { throw refuse("is encoded twice") }
        return try check(decoded: decoded, identifier: identifier)
    }

    /// `decoded` when it is a safe relative path: no control character, backslash, absolute path,
    /// empty, `.` or `..` component, or hidden file.
    private static func check(decoded: String, identifier: String) throws(IdentifierError) -> String {
        func refuse(_ why: String) -> IdentifierError { IdentifierError(identifier: identifier, reason: .invalid(why)) }
        if decoded.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw refuse("contains a control character")
        }
        if decoded.contains("\\") { throw refuse("contains a backslash") }
        if decoded.hasPrefix("/") { throw refuse("is an absolute path") }
        for component in decoded.split(separator: "/", omittingEmptySubsequences: false) {
            if component.isEmpty { throw refuse("has an empty path component") }
            if component == ".." || component == "." { throw refuse("contains a relative path component") }
            if component.hasPrefix(".") { throw refuse("names a hidden file") }
        }
        return decoded
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

extension IdentifierResolver {
    /// What a `;` after an identifier names.
    public enum Suffix: Sendable, Equatable {
        /// Page `n`, from 1: digits without leading zeros.
        case page(Int)
        /// An associated image of a slide: 1 to 32 lowercase ASCII letters (`label`, `macro`, `thumbnail`).
        case associatedImage(String)
    }

    /// The identifier and what its `;{suffix}` names (`%3B` decodes to the same `;`); nil for an
    /// identifier without one. (Cantaloupe's meta-identifiers use the same form.)
    public static func suffix(of identifier: String) -> (identifier: String, suffix: Suffix)? {
        let bytes = Array(identifier.utf8)
        var start = bytes.count
        while start > 0, bytes.count - start <= 32, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(bytes[start - 1]) { start -= 1 }
        let isName = start < bytes.count
        if !isName {
            while start > 0, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[start - 1]) { start -= 1 }
        }
        let text = bytes[start...]
        guard !text.isEmpty, text.count <= (isName ? 32 : 6), isName || text.first != UInt8(ascii: "0") else { return nil }
        let separatorStart: Int
        if start >= 2, bytes[start - 1] == UInt8(ascii: ";") {
            separatorStart = start - 1
        } else if start >= 4, bytes[start - 3] == UInt8(ascii: "%"), bytes[start - 2] == UInt8(ascii: "3"),
            bytes[start - 1] | 0x20 == UInt8(ascii: "b")
        {
            separatorStart = start - 3
        } else {
            return nil
        }
        let value = String(decoding: text, as: UTF8.self)
        guard let suffix = isName ? Suffix.associatedImage(value) : Int(value).map(Suffix.page) else { return nil }
        return (String(decoding: bytes[..<separatorStart], as: UTF8.self), suffix)
    }
}

extension ResolvedSource {
    /// This source's page or associated image `suffix` names.
    public func applying(_ suffix: IdentifierResolver.Suffix) -> ResolvedSource {
        switch suffix {
        case .page(let page): self.page(page)
        case .associatedImage(let name): associatedImage(name)
        }
    }
}
