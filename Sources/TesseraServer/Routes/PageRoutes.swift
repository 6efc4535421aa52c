import HTTPTypes
import Hummingbird
import NIOCore
import TesseraCore
import TesseraIIIF

/// The pages people use: `/` (the listing), `/view/{identifier}` (the deep-zoom viewer, of an
/// image or of every page of a document), `/view?manifest=URL` (the same viewer over any IIIF
/// Presentation 3.0 manifest),
/// `/grid?dir=…` (a grid of downsampled images), `/trim/{identifier}` (the video trimmer), and
/// their files under `/web/`, all below where they are mounted. A page is the same file whatever
/// it shows; its script reads the identifier from the URL, so nothing a client sends is ever
/// written into a page. Its `<base>` is where the pages are mounted, and every URL the pages ask
/// for is relative to it: Tessera's other routes are expected under the same path (as
/// ``TesseraServer/routes(_:)`` has them).
struct PageRoutes {
    let assets: WebAssets

    /// Pages and their scripts load only from this server and run no inline script; framing by
    /// other sites is refused. The viewer may read another server's manifest, descriptions and
    /// tiles (`connect-src`), show its thumbnails (`img-src`) and play its videos and sounds
    /// (`media-src`): what it fetches is data, never script or markup.
    static let securityHeaders: HTTPFields = [
        HTTPField.Name("Content-Security-Policy")!:
            "default-src 'self'; img-src 'self' blob: data: http: https:; connect-src 'self' http: https:; "
            + "media-src 'self' blob: http: https:; script-src 'self'; "
            + "style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'",
        HTTPField.Name("X-Content-Type-Options")!: "nosniff",
        HTTPField.Name("Referrer-Policy")!: "same-origin",
    ]

    func add<Context: RequestContext>(to routes: LabelledRoutes<Context>) {
        routes("root") { $0.get("/") { request, context in try page("index.html", request, mount: context.mountPath(less: 0)) } }
        routes("grid") { $0.get("grid") { request, context in try page("grid.html", request, mount: context.mountPath(less: 1)) } }
        routes("view") {
            $0.get("view/:identifier") { request, context in try page("viewer.html", request, mount: context.mountPath(less: 2)) }
            $0.get("view") { request, context in try page("viewer.html", request, mount: context.mountPath(less: 1)) }
        }
        routes("trim") {
            $0.get("trim/:identifier") { request, context in try page("trimmer.html", request, mount: context.mountPath(less: 2)) }
        }
        // Browsers ask for it whatever the page says.
        routes("favicon.ico") { $0.get("favicon.ico") { request, context in try page("icon.svg", request, mount: context.mountPath(less: 1)) } }
        routes("web") {
            // A page asked for by its file name (`web/viewer.html`) gets the same base as by its route.
            $0.get("web/:name") { request, context in
                try page(try context.parameters.require("name"), request, mount: context.mountPath(less: 2))
            }
        }
    }

    /// The file `name`; an HTML page with its `<base>` set to `mount` (the pages' own files say `/`).
    private func page(_ name: String, _ request: Request, mount: String) throws -> Response {
        guard let asset = assets.asset(named: name) else { throw ServerError(.notFound, "no such page file") }
        var (body, entityTag) = (asset.body, asset.entityTag)
        if !mount.isEmpty, asset.contentType.hasPrefix("text/html") {
            let html = String(buffer: body).replacing(Self.rootBase, with: "<base href=\"\(mount)/\">")
            body = ByteBuffer(string: html)
            entityTag = EntityTag.make((entityTag + mount).utf8)
        }
        return CacheableResponse(
            body: body, contentType: asset.contentType, entityTag: entityTag,
            lastModified: nil, maxAge: nil, extraHeaders: Self.securityHeaders
        ).response(to: request)
    }

    /// What each page's `<head>` says when the pages are mounted at the root.
    static let rootBase = "<base href=\"/\">"
}
