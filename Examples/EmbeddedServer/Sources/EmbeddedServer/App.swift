public import Hummingbird
public import TesseraServer

/// The app's own request context: Hummingbird's storage, and who its authentication found.
public struct AppRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The signed-in user, when the request carried a known token.
    public var user: String?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
    }
}

/// A toy authentication, standing in for the app's real one: `Authorization: Bearer TOKEN`, looked
/// up in a fixed table, sets ``AppRequestContext/user``. It turns nobody away by itself.
public struct TokenAuthentication: RouterMiddleware {
    public typealias Context = AppRequestContext
    let users: [String: String]

    public init(users: [String: String]) {
        self.users = users
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        if let header = request.headers[.authorization], header.hasPrefix("Bearer ") {
            context.user = users[String(header.dropFirst(7))]
        }
        return try await next(request, context)
    }
}

/// Turns away a request nobody signed in for (401), for the routes it is added to.
public struct RequireUser: RouterMiddleware {
    public typealias Context = AppRequestContext

    public init() {}

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard context.user != nil else { throw HTTPError(.unauthorized, message: "sign in to see the images") }
        return try await next(request, context)
    }
}

/// The app's router: its own routes, and Tessera's IIIF Image API under `/images/iiif/3`, for
/// signed-in users only. Tessera's middleware (its error bodies, CORS, metrics) wraps Tessera's
/// routes alone; the app's own middleware wraps everything it is added to, Tessera's routes too.
public func makeRouter(tessera: TesseraServer, users: [String: String]) -> Router<AppRequestContext> {
    let router = Router(context: AppRequestContext.self, options: .autoGenerateHeadEndpoints)
    router.add(middleware: TokenAuthentication(users: users))
    router.get("hello") { _, context in "Hello, \(context.user ?? "stranger")\n" }
    router.get("me") { _, context in
        guard let user = context.user else { throw HTTPError(.unauthorized) }
        return user + "\n"
    }
    router.group("images")
        .add(middleware: RequireUser())
        .addRoutes(tessera.iiifRoutes(), atPath: "iiif/3")
    return router
}
