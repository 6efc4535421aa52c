import Hummingbird
import HTTPTypes
import NIOCore
import TesseraPipeline

/// A response body with the validators and headers HTTP caching needs; ``response(to:)`` answers
/// `304 Not Modified` when the client's copy is current.
struct CacheableResponse {
    var body: ByteBuffer
    var contentType: String
    /// A strong validator (quoted), from the source identity and the canonical request.
    var entityTag: String
    /// The source's modification time, in seconds since 1970; nil when the representation has none.
    var lastModified: Int64?
    /// Seconds a cache may reuse the response unchecked; nil: `no-cache` (always revalidated, as
    /// the pages are, so a new version shows at once and an unchanged one costs a 304).
    var maxAge: Int?
    /// `Link` header values (profile, canonical).
    var links: [String] = []
    /// Set when the representation depends on a request header (info.json on `Accept`).
    var vary: String?
    /// Further headers sent with a full response (a page's Content-Security-Policy).
    var extraHeaders: HTTPFields = [:]

    static let linkField = HTTPField.Name("Link")!

    func response(to request: Request) -> Response {
        var headers = HTTPFields()
        headers[.eTag] = entityTag
        if let lastModified { headers[.lastModified] = HTTPDate.string(fromSeconds: lastModified) }
        headers[.cacheControl] = maxAge.map { "public, max-age=\($0)" } ?? "no-cache"
        if let vary { headers[.vary] = vary }
        if isNotModified(request) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = contentType
        // One header holding every link: some clients (the IIIF validator among them) read only the first.
        if !links.isEmpty { headers[Self.linkField] = links.joined(separator: ", ") }
        headers.append(contentsOf: extraHeaders)
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: body))
    }

    /// RFC 9110 §13.2.2: If-None-Match decides when present (weak comparison, `*` matches);
    /// otherwise If-Modified-Since, at one-second resolution.
    private func isNotModified(_ request: Request) -> Bool {
        if let tags = request.headers[values: .ifNoneMatch].nonEmpty {
            return tags.contains { list in
                list.split(separator: ",").contains { candidate in
                    let tag = candidate.trimmingSpaces
                    return tag == "*" || (tag.hasPrefix("W/") ? tag.dropFirst(2) : tag[...]) == entityTag[...]
                }
            }
        }
        if let lastModified, let since = request.headers[.ifModifiedSince].flatMap(HTTPDate.seconds(from:)) {
            return lastModified <= since
        }
        return false
    }
}

private extension Array {
    var nonEmpty: Self? { isEmpty ? nil : self }
}
