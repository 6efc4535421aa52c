import HTTPTypes
import Hummingbird
import NIOCore
import TesseraCore
import TesseraIIIF

/// A file under the root sent as it is: the video routes' files and clips, the originals the
/// Presentation documents offer as `rendering`.
enum FileResponse {
    /// A file with its validators, `Accept-Ranges`, and the one range asked for (206), unless
    /// `If-Range` names another version; 304 when the client's copy is current.
    static func send(
        path: String, identity: FileIdentity, mediaType: String, request: Request, context: some RequestContext
    ) async throws -> Response {
        let entityTag = EntityTag.make(identity.description.utf8)
        let validators = CacheableResponse(
            body: ByteBuffer(), contentType: mediaType, entityTag: entityTag,
            lastModified: identity.modificationSeconds, maxAge: nil)
        let conditional = validators.response(to: request)
        if conditional.status == .notModified { return conditional }
        var headers = conditional.headers
        headers[.acceptRanges] = "bytes"
        let size = identity.byteCount
        let ifRange = request.headers[.ifRange]
        let range =
            ifRange == nil || ifRange == entityTag
            ? ByteRange(header: request.headers[.range], fileSize: size) : .whole
        switch range {
        case .unsatisfiable:
            return Response(status: .rangeNotSatisfiable, headers: [.contentRange: "bytes */\(size)"])
        case .part(let bytes):
            headers[.contentRange] = "bytes \(bytes.lowerBound)-\(bytes.upperBound)/\(size)"
            headers[.contentLength] = String(bytes.count)
            return Response(
                status: .partialContent, headers: headers,
                body: try await FileIO().loadFile(path: path, range: bytes, context: context))
        case .whole:
            headers[.contentLength] = String(size)
            return Response(status: .ok, headers: headers, body: try await FileIO().loadFile(path: path, context: context))
        }
    }
}
