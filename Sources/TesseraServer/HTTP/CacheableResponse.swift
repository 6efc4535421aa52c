import HTTPTypes
import Hummingbird
import NIOCore
import TesseraCore

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
        let (head, body) = parts(for: request.head)
        let sent = head.status == .notModified ? ResponseBody() : ResponseBody(byteBuffer: body)
        return Response(status: head.status, headers: head.headerFields, body: sent)
    }

    /// The response to `request` as ``response(to:)`` gives it, with `body` written as it is made
    /// (a document too long to hold whole) instead of ``body``.
    func response(to request: Request, streaming body: ResponseBody) -> Response {
        if isNotModified(request.headers) { return Response(status: .notModified, headers: validatorFields()) }
        return Response(status: .ok, headers: fullFields(), body: body)
    }

    /// The response head and body for `request`: `304 Not Modified` with an empty body when the
    /// client's copy is current, else `200 OK` with ``body``.
    func parts(for request: HTTPRequest) -> (head: HTTPResponse, body: ByteBuffer) {
        if isNotModified(request.headerFields) {
            return (HTTPResponse(status: .notModified, headerFields: validatorFields()), ByteBuffer())
        }
        return (HTTPResponse(status: .ok, headerFields: fullFields()), body)
    }

    /// The headers of a `304`: the validators and caching rules.
    func validatorFields() -> HTTPFields {
        var headers: HTTPFields = [.eTag: entityTag]
        headers.append(contentsOf: cachingFields())
        return headers
    }

    /// The headers of a full response (without its length).
    func fullFields() -> HTTPFields {
        var headers = validatorFields()
        headers.append(contentsOf: representationFields())
        // One header holding every link: some clients (the IIIF validator among them) read only the first.
        if !links.isEmpty { headers[Self.linkField] = links.joined(separator: ", ") }
        return headers
    }

    /// The caching headers but the entity tag: `Last-Modified`, `Cache-Control`, `Vary`.
    func cachingFields() -> HTTPFields {
        var headers = HTTPFields()
        if let lastModified { headers[.lastModified] = HTTPDate.string(fromSeconds: lastModified) }
        headers[.cacheControl] = maxAge.map { "public, max-age=\($0)" } ?? "no-cache"
        if let vary { headers[.vary] = vary }
        return headers
    }

    /// What a full response adds but its links and length: the type and the extra headers.
    func representationFields() -> HTTPFields {
        var headers: HTTPFields = [.contentType: contentType]
        headers.append(contentsOf: extraHeaders)
        return headers
    }

    /// RFC 9110 §13.2.2: If-None-Match decides when present (weak comparison, `*` matches);
    /// otherwise If-Modified-Since, at one-second resolution.
    func isNotModified(_ request: HTTPFields) -> Bool {
        Self.isNotModified(request, entityTag: entityTag, lastModified: lastModified)
    }

    static func isNotModified(_ request: HTTPFields, entityTag: String, lastModified: Int64?) -> Bool {
        if let tags = request[values: .ifNoneMatch].nonEmpty {
            return tags.contains { list in
                list.split(separator: ",").contains { candidate in
                    let tag = candidate.trimmingSpaces
                    return tag == "*" || (tag.hasPrefix("W/") ? tag.dropFirst(2) : tag[...]) == entityTag[...]
                }
            }
        }
        if let lastModified, let since = request[.ifModifiedSince].flatMap(HTTPDate.seconds(from:)) {
            return lastModified <= since
        }
        return false
    }
}

private extension Array {
    var nonEmpty: Self? { isEmpty ? nil : self }
}
