import HTTPTypes
public import Hummingbird
import Logging
import NIOCore
import TesseraCore

/// The headers every response carries, also one made outside the router (``StoredTileShortcuts``
/// adds them): CORS (Hummingbird adds the server's name and the date). Made once, not per request
/// (the generic middleware cannot hold a stored static).
let commonResponseFields: HTTPFields = [.accessControlAllowOrigin: "*"]

/// What every request to Tessera's routes goes through, in one place: errors mapped to statuses by
/// the one table (`HTTPResponse/Status/init(_:)`) with a short text body naming no path, CORS,
/// and the request metrics (`tessera_http_requests_total{route=…}`).
///
/// Each route collection ``TesseraServer`` hands out carries its own, around its own routes only:
/// an app that mounts them keeps its own error format and headers everywhere else. An app may add
/// it to routes of its own too, to answer their errors as Tessera does.
public struct TesseraMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServerMetrics
    let route: String
    var limits: ClientLimits? = nil
    var access: AccessControl? = nil
    var privatePaths = PrivatePaths([])

    /// - Parameters:
    ///   - server: whose metrics count the requests, and whose directories no error text names.
    ///   - route: their label in the metrics (`route="…"`).
    public init(server: TesseraServer, route: String) {
        self.init(metrics: server.service.metrics, route: route, privatePaths: server.privatePaths)
    }

    init(
        metrics: ServerMetrics, route: String, limits: ClientLimits? = nil, access: AccessControl? = nil,
        privatePaths: PrivatePaths = PrivatePaths([])
    ) {
        self.metrics = metrics
        self.route = route
        self.limits = limits
        self.access = access
        self.privatePaths = privatePaths
    }

    /// `next`'s response with the common headers, or the response for its error; counted.
    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        var response: Response
        do {
            if let limits {
                let client = limits.key(request, context: context, access: access)
                if let wait = limits.admit(client) {
                    let (head, body) = ClientLimits.refusal(retryAfter: wait, head: request.method == .head)
                    response = Response(status: head.status, headers: head.headerFields, body: ResponseBody(byteBuffer: body))
                } else {
                    response = try await ClientLimits.$current.withValue((limits, client)) { try await next(request, context) }
                }
            } else {
                response = try await next(request, context)
            }
        } catch  where Task.isCancelled {
            // The client went away (``ServerChannel``) and its work was stopped: nobody reads this
            // answer. Counted as nginx logs it, 499, and not reported as a server error.
            context.logger.debug("\(request.method) \(request.uri.path): the client went away")
            response = Response(status: .init(code: 499, reasonPhrase: "Client Closed Request"))
        } catch {
            response = Self.errorResponse(error, request: request, logger: context.logger, privatePaths: privatePaths)
        }
        response.headers.append(contentsOf: commonResponseFields)
        // A viewer on an origin the policy trusts with tokens may send its cookie (credentialed
        // CORS): that needs its own origin named, never `*`.
        if let access, let origin = request.headers[.origin], access.policy.tokenOrigins.contains(origin) {
            response.headers[.accessControlAllowOrigin] = origin
            response.headers[.accessControlAllowCredentials] = "true"
            response.headers.append(HTTPField(name: .vary, value: "Origin"))
        }
        metrics.recordRequest(route: route, status: response.status.code, duration: ContinuousClock.now - start)
        return response
    }

    /// The response for a failure: its status, `Retry-After` when trying later may work, and one line
    /// of text (the error's own description, which names no filesystem path, and without
    /// `privatePaths` should a library's message have named one).
    static func errorResponse(_ error: any Error, request: Request, logger: Logger, privatePaths: PrivatePaths) -> Response {
        let status: HTTPResponse.Status
        let message: String
        if let denied = error as? AccessDenied {
            return denied.response(head: request.method == .head)
        } else if let error = error as? any HTTPResponseError {
            // Hummingbird's own (no route: 404, wrong method: 405).
            status = error.status
            message = status.reasonPhrase
        } else {
            let category = ErrorCategory(of: error)
            status = HTTPResponse.Status(category)
            message =
                category == .internal && !(error is any TesseraError)
                ? "internal error" : privatePaths.scrub(oneLine(String(describing: error)))
            if status.kind == .serverError {
                logger.error("\(request.method) \(request.uri.path): \(status.code) \(message)")
            }
        }
        var headers: HTTPFields = [.contentType: "text/plain; charset=utf-8"]
        if status == .serviceUnavailable { headers[.retryAfter] = "1" }
        let body = request.method == .head ? ByteBuffer() : ByteBuffer(string: message + "\n")
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: body))
    }
}

/// `work`'s result, or ``ServerError`` (busy: 503) once `timeout` has passed, with `work` cancelled
/// (a pyramid build it waits on goes on for the next request). The routes apply it to the library
/// work of each request.
func withDeadline<T: Sendable>(_ timeout: Duration, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await work() }
        group.addTask {
            try await Task.sleep(for: timeout)
            throw ServerError(.busy, "not answered within \(timeout.components.seconds) s; try again later")
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}
