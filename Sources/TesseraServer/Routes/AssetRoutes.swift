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
                let listing = try await lister.list(
                    dir: query["dir"].map(String.init) ?? "", cursor: query["cursor"].map(String.init), limit: limit)
                // Revalidated each time (the directory may change); no-cache, not no-store.
                return Response(
                    status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-cache"],
                    body: ResponseBody(byteBuffer: try JSONBody.encode(listing)))
            }
        }
    }
}
