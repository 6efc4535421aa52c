import HTTPTypes
import Hummingbird

/// The answer to a browser's CORS preflight (`OPTIONS` with `Access-Control-Request-Method`), on
/// every path a route collection answers: what lets a viewer on another origin send a header that
/// is not CORS-safelisted, the IIIF Auth 2 probe's `Authorization: Bearer` above all.
///
/// `Authorization` is allowed only from the origins the policy trusts with tokens
/// (``AccessPolicy/tokenOrigins``), which also get their own origin and credentials back (added by
/// ``TesseraMiddleware``, as on every answer to them); from any other origin a preflight asking
/// for it is refused (403: no preflight but a 2xx lets the request through). The headers any
/// origin may send are those that change nothing of who is asking: conditionals, ranges, `Accept`.
struct CORSPreflight: Sendable {
    /// Who may see what; nil: no policy, so no origin is trusted with credentials.
    let access: AccessControl?

    /// Request headers any origin may send (lower case, as browsers list them).
    static let anyOriginHeaders: Set<String> = ["accept", "range", "if-none-match", "if-modified-since", "if-match", "if-range"]

    /// How long a browser may keep a preflight's answer, in seconds.
    static let maxAge = "600"

    /// The answer to `request`, an `OPTIONS` on a path whose routes answer `methods`.
    func response(to request: Request, methods: String) -> Response {
        let origin = request.headers[.origin]
        let trusted = origin.map { access?.policy.tokenOrigins.contains($0) ?? false } ?? false
        let asked = (request.headers[.accessControlRequestHeaders] ?? "").split(separator: ",")
            .map { $0.filter { $0 != " " && $0 != "\t" }.lowercased() }.filter { !$0.isEmpty }
        if let refused = asked.first(where: { !(Self.anyOriginHeaders.contains($0) || (trusted && $0 == "authorization")) }) {
            return Response(
                status: .forbidden, headers: [.contentType: "text/plain; charset=utf-8", .vary: "Origin"],
                body: ResponseBody(byteBuffer: .init(string: "the header \(refused) is not allowed from this origin\n")))
        }
        var headers: HTTPFields = [
            .allow: methods, .accessControlAllowMethods: methods, .accessControlMaxAge: Self.maxAge,
            .vary: "Origin, Access-Control-Request-Headers",
        ]
        if !asked.isEmpty { headers[.accessControlAllowHeaders] = asked.joined(separator: ", ") }
        return Response(status: .noContent, headers: headers)
    }
}

/// Routes being added to a collection, each path also answering ``CORSPreflight`` for the methods
/// added on it: what ``LabelledRoutes`` hands each group of routes, so no route is without one.
final class PreflightedRoutes<Context: RequestContext>: RouterMethods {
    let collection: RouteCollection<Context>
    let preflight: CORSPreflight
    /// The methods of each path (by its pattern), in the order they were added.
    private var methods: [(path: RouterPath, methods: [HTTPRequest.Method])] = []

    init(collection: RouteCollection<Context>, preflight: CORSPreflight) {
        self.collection = collection
        self.preflight = preflight
    }

    @discardableResult func on<Responder: HTTPResponder>(
        _ path: RouterPath, method: HTTPRequest.Method, responder: Responder
    ) -> Self where Responder.Context == Context {
        _ = collection.on(path, method: method, responder: responder)
        if let index = methods.firstIndex(where: { $0.path.description == path.description }) {
            methods[index].methods.append(method)
        } else {
            methods.append((path, [method]))
        }
        return self
    }

    @discardableResult func add(middleware: any MiddlewareProtocol<Request, Response, Context>) -> Self {
        collection.add(middleware: middleware)
        return self
    }

    /// Adds the `OPTIONS` route of every path added so far (once they all are: a path's methods are then known).
    func addPreflights() {
        for (path, pathMethods) in methods where !pathMethods.contains(.options) {
            // A GET route answers HEAD too.
            let answered = pathMethods + (pathMethods.contains(.get) && !pathMethods.contains(.head) ? [.head] : []) + [.options]
            let allowed = answered.map(\.rawValue).joined(separator: ", ")
            let preflight = self.preflight
            collection.on(path, method: .options) { request, _ in preflight.response(to: request, methods: allowed) }
        }
    }
}
