import FoundationEssentials
import HTTPTypes
import Hummingbird
import NIOCore
import TesseraCore

/// `GET /api/assets?dir=…&cursor=…&limit=…`: a page of the directories, images and videos under
/// the root, as JSON (``AssetListing``). `dir` is a path relative to the root (default: the root);
/// `cursor` is the previous page's `next`; `limit` is 1–1000 (default 100).
struct AssetRoutes {
    let lister: AssetLister
    /// Who may see what; nil when everything is public.
    var access: AccessControl?

    static let defaultLimit = 100
    static let limitRange = 1...1000

    func add<Context: RequestContext>(to routes: LabelledRoutes<Context>) {
        routes("api") {
            $0.get("api/assets") { request, _ in
                let query = request.uri.queryParameters
                var limit = Self.defaultLimit
                if let text = query["limit"] {
                    guard let value = Int(text), Self.limitRange.contains(value) else {
                        throw ServerError(.badInput, "limit must be a whole number from 1 to 1000")
                    }
                    limit = value
                }
                var listing = try await lister.list(
                    dir: query["dir"].map(String.init) ?? "", cursor: query["cursor"].map(String.init), limit: limit)
                var headers: HTTPFields = [.contentType: "application/json", .cacheControl: "no-cache"]
                if let access, access.policy.restrictsAnything {
                    // An image or video the requester may see nothing of is not listed, nor its size.
                    listing.entries = try await listing.entries.asyncFilter { entry in
                        guard entry.kind != .directory else { return true }
                        do {
                            _ = try await access.grant(forPath: entry.path, request: request)
                            return true
                        } catch is AccessDenied {
                            return false
                        }
                    }
                    (headers[.cacheControl], headers[.vary]) = ("private, no-cache", "Cookie, Authorization")
                }
                // Revalidated each time (the directory may change); no-cache, not no-store.
                return Response(
                    status: .ok, headers: headers,
                    body: ResponseBody(byteBuffer: try JSONBody.encode(listing)))
            }
        }
    }
}

extension Array where Element: Sendable {
    /// The elements `keep` says yes to, in order, asked one at a time.
    func asyncFilter(_ keep: (Element) async throws -> Bool) async rethrows -> [Element] {
        var kept: [Element] = []
        for element in self where try await keep(element) { kept.append(element) }
        return kept
    }
}
