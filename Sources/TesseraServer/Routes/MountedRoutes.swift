import Hummingbird

/// Adds routes to a collection each under its own ``TesseraMiddleware`` (its metric label), so
/// the middleware wraps those routes alone: `routes("iiif_info") { $0.get(…) }`.
struct LabelledRoutes<Context: RequestContext> {
    let collection: RouteCollection<Context>
    let metrics: ServerMetrics
    /// Per-client limits applied to every request of these routes, if any.
    var limits: ClientLimits? = nil
    /// Who may see what: a request with a valid access cookie is limited as its user.
    var access: AccessControl? = nil
    /// The directories no error text names.
    var privatePaths = PrivatePaths([])

    /// Adds the routes `add` makes, and on each of their paths the CORS preflight (``CORSPreflight``).
    func callAsFunction(_ label: String, _ add: (PreflightedRoutes<Context>) -> Void) {
        let routes = RouteCollection(context: Context.self)
        routes.add(middleware: TesseraMiddleware(metrics: metrics, route: label, limits: limits, access: access, privatePaths: privatePaths))
        let preflighted = PreflightedRoutes(collection: routes, preflight: CORSPreflight(access: access))
        add(preflighted)
        preflighted.addPreflights()
        collection.addRoutes(routes)
    }
}

extension RequestContext {
    /// The path the matched route's collection is mounted at ("" at the root, else `/images/iiif/3`),
    /// from the route's pattern less its own last `segments` (`/images/iiif/3/{identifier}/info.json`
    /// less 2): what every URL a route writes is built from, wherever an app mounted it. The
    /// pattern is the app's, never the client's.
    func mountPath(less segments: Int) -> String {
        guard let pattern = endpointPath else { return "" }
        let parts = pattern.split(separator: "/").dropLast(segments)
        return parts.isEmpty ? "" : "/" + parts.joined(separator: "/")
    }
}
