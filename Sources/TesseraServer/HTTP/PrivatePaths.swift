import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The server's own directories (the root, the cache, the pages), taken out of every error text a
/// client is sent. The library's errors name no path; this makes sure of it for what a C library
/// wrote into a message (libtiff names the file it reads), whatever the library: a path under the
/// root is left as the identifier the client asked for, any other loses its directory.
struct PrivatePaths: Sendable {
    /// The directories, as configured and as `realpath` gives them, longest first (a cache inside
    /// the root is taken out before the root).
    let directories: [String]

    init(_ configuration: ServerConfiguration) {
        self.init([configuration.root, configuration.cacheDirectory, configuration.pagesDirectory].compactMap { $0 })
    }

    init(_ paths: [String]) {
        var all: Set<String> = []
        for path in paths where path.hasPrefix("/") && path.count > 1 {
            all.insert(Self.trimmed(path))
            if let real = realpath(path, nil) {
                all.insert(Self.trimmed(String(cString: real)))
                free(real)
            }
        }
        directories = all.filter { $0.count > 1 }.sorted { $0.count > $1.count }
    }

    /// `text` without any of the directories (and the slash after one).
    func scrub(_ text: String) -> String {
        guard text.contains("/") else { return text }
        return directories.reduce(text) { text, directory in
            text.contains(directory) ? text.replacing(directory + "/", with: "").replacing(directory, with: "") : text
        }
    }

    private static func trimmed(_ path: String) -> String {
        var path = path[...]
        while path.count > 1, path.hasSuffix("/") { path = path.dropLast() }
        return String(path)
    }
}
