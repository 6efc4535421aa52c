import Hummingbird
import HTTPTypes
import TesseraCore

/// The pages people use: `/` (the listing), `/view/{identifier}` (the deep-zoom viewer),
/// `/grid?dir=…` (a grid of downsampled images), `/trim/{identifier}` (the video trimmer), and
/// their files under `/web/`. A page is the same file whatever it shows; its script reads the
/// identifier from the URL, so nothing a client sends is ever written into a page.
struct PageRoutes {
    let assets: WebAssets

    /// Pages and their scripts load only from this server and run no inline script; framing by
    /// other sites is refused.
    static let securityHeaders: HTTPFields = [
        HTTPField.Name("Content-Security-Policy")!:
            "default-src 'self'; img-src 'self' blob: data:; media-src 'self' blob:; script-src 'self'; "
            + "style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
        HTTPField.Name("X-Content-Type-Options")!: "nosniff",
        HTTPField.Name("Referrer-Policy")!: "same-origin",
    ]

    func register(on router: Router<BasicRequestContext>) {
        router.get("/") { request, _ in try page("index.html", request) }
        router.get("grid") { request, _ in try page("grid.html", request) }
        router.get("view/:identifier") { request, _ in try page("viewer.html", request) }
        router.get("trim/:identifier") { request, _ in try page("trimmer.html", request) }
        // Browsers ask for it whatever the page says.
        router.get("favicon.ico") { request, _ in try page("icon.svg", request) }
        router.get("web/:name") { request, context in
            try page(try context.parameters.require("name"), request)
        }
    }

    private func page(_ name: String, _ request: Request) throws -> Response {
        guard let asset = assets.asset(named: name) else { throw ServerError(.notFound, "no such page file") }
        return CacheableResponse(
            body: asset.body, contentType: asset.contentType, entityTag: asset.entityTag,
            lastModified: nil, maxAge: nil, extraHeaders: Self.securityHeaders
        ).response(to: request)
    }
}
