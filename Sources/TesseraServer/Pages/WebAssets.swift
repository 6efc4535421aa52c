import CTesseraWeb
import FoundationEssentials
import NIOCore
import TesseraCore
import TesseraIIIF

/// The files of the server's pages (HTML, CSS, ES modules from `Sources/CTesseraWeb/Web`), by name.
///
/// Normally the copies compiled into the binary, read once. With a pages directory (`--pages`)
/// each request reads the file from there instead, so pages can be customised or developed
/// without rebuilding.
struct WebAssets: Sendable {
    /// One file, ready to send.
    struct Asset: Sendable {
        var body: ByteBuffer
        var contentType: String
        /// A strong validator of the bytes (quoted).
        var entityTag: String
    }

    private let embedded: [String: Asset]
    private let directory: String?

    /// - Parameter directory: where to read the pages from on every request; nil for the built-in ones.
    init(directory: String? = nil) {
        self.directory = directory
        var files: [String: Asset] = [:]
        var index: Int32 = 0
        while let file = tessera_web_file(index) {
            let bytes = UnsafeRawBufferPointer(start: file.pointee.bytes, count: Int(file.pointee.length))
            let name = String(cString: file.pointee.name)
            files[name] = Self.asset(name: name, body: ByteBuffer(bytes: bytes))
            index += 1
        }
        embedded = files
    }

    /// The names of the built-in files.
    var builtInNames: [String] { embedded.keys.sorted() }

    /// The file called `name`, or nil when there is none (or the name is not one a page file can have).
    func asset(named name: String) -> Asset? {
        guard Self.isValidName(name) else { return nil }
        guard let directory else { return embedded[name] }
        guard let data = FileManager.default.contents(atPath: directory + "/" + name) else { return nil }
        return Self.asset(name: name, body: ByteBuffer(bytes: data))
    }

    /// Lower-case letters, digits and `-`, one dot and a known extension: nothing that could climb
    /// out of the pages directory.
    static func isValidName(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, mediaTypes[String(parts[1])] != nil else { return false }
        return parts[0].utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "-")
        }
    }

    static let mediaTypes = [
        "html": "text/html; charset=utf-8",
        "js": "text/javascript; charset=utf-8",
        "css": "text/css; charset=utf-8",
        "svg": "image/svg+xml",
        "json": "application/json",
    ]

    private static func asset(name: String, body: ByteBuffer) -> Asset {
        let fileExtension = String(name.split(separator: ".").last ?? "")
        return Asset(
            body: body, contentType: mediaTypes[fileExtension] ?? "application/octet-stream",
            entityTag: EntityTag.make(body.readableBytesView))
    }
}
