extension ServerConfiguration {
    /// The scheme and authority every URL Tessera writes is built on: `--public-url`, else `http://` and the request's
    /// Host, `authority` (when it is a plausible host name; a hostile Host header is not echoed).
    public func baseURL(authority: String?) -> String {
        if let publicURL = publicURL {
            return publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL
        }
        let configured = host + ":" + String(port)
        let host = authority ?? configured
        let plausible =
            !host.isEmpty && host.utf8.count <= 255
            && host.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
                default: ".-:[]_".utf8.contains(byte)
                }
            }
        return "http://" + (plausible ? host : configured)
    }
}

/// Where another route collection is, for the URLs one collection writes about the other's
/// resources (a manifest's image services, an info.json's manifest).
enum MountLocation: Sendable, Hashable {
    /// At this absolute path (`/images/iiif/3`), as the app mounted it.
    case path(String)
    /// Beside this collection, as ``TesseraServer/routes(_:)`` lays them out: `relative` under
    /// the path the two share, which is this collection's mount less its own `depth` segments.
    case beside(String, depth: Int)

    /// The absolute path, given where this collection is mounted (`mount`, "" at the root).
    func resolved(from mount: String) -> String {
        switch self {
        case .path(let path):
            return path.hasSuffix("/") ? String(path.dropLast()) : path
        case .beside(let relative, let depth):
            let parent = mount.split(separator: "/").dropLast(depth)
            let base = parent.isEmpty ? "" : "/" + parent.joined(separator: "/")
            return relative.isEmpty ? base : base + "/" + relative
        }
    }
}
