import HTTPTypes
import Hummingbird
import NIOCore
import TesseraCore
import TesseraIIIF

/// IIIF Image API 3.0, mounted anywhere (`/iiif/3` by `tessera serve`): `{identifier}` (303 to
/// info.json), `{identifier}/info.json`, and image requests. Ids and links are built from where
/// the routes are mounted.
struct IIIFRoutes {
    let service: ImageService
    /// Where the Presentation routes are, for info.json's `partOf`; nil when they are not mounted.
    var manifests: MountLocation? = nil
    /// Where the access routes are (``AuthRoutes``), for the probe services of images not everyone
    /// may see whole; nil when they are not mounted.
    var auth: MountLocation? = nil

    static let profileLink = "<http://iiif.io/api/image/3/level2.json>;rel=\"profile\""
    static let jsonLDType = "application/ld+json;profile=\"http://iiif.io/api/image/3/context.json\""

    func add<Context: RequestContext>(to routes: LabelledRoutes<Context>) {
        routes("iiif_base") {
            $0.get(":identifier") { request, context in
                let identifier = try context.parameters.require("identifier")
                _ = try await service.resolve(identifier, for: request)
                let location =
                    service.configuration.baseURL(authority: request.head.authority) + context.mountPath(less: 1) + "/" + identifier + "/info.json"
                return Response(status: .seeOther, headers: [.location: location])
            }
        }
        routes("iiif_info") {
            $0.get(":identifier/info.json") { request, context in
                let identifier = try context.parameters.require("identifier")
                let mount = context.mountPath(less: 2)
                let base = service.configuration.baseURL(authority: request.head.authority)
                let source: ResolvedSource, grant: AccessControl.Grant
                do {
                    (source, grant) = try await service.resolve(identifier, for: request)
                } catch let denied as AccessDenied {
                    return try withheld(identifier, denied: denied, base: base, mount: mount) ?? { throw denied }()
                }
                let id = imageBase(authority: request.head.authority, mount: mount, source: source)
                let contentType = Self.infoContentType(accept: request.headers[values: .accept])
                let partOf = manifests.map { location in
                    ResourceReference(
                        id: PresentationURLs.manifest(
                            PercentEncoding.encode(source.relativePath), presentation: base + location.resolved(from: mount)),
                        type: "Manifest", label: LanguageMap([PresentationPieces.split(source.relativePath).name]))
                }
                let probe = service.isOpen(source) ? nil : authService(for: source.encodedIdentifier, base: base, mount: mount)
                let body = try await service.info(for: source, id: id, partOf: partOf, grant: grant, auth: probe)
                var response = CacheableResponse(
                    body: body, contentType: contentType,
                    entityTag: service.answers.entityTag(
                        source, grant.cacheKeyPrefix + "info|" + id + "|" + (partOf?.id ?? "") + "|" + (probe?.id ?? "") + "|" + contentType),
                    lastModified: source.identity.modificationSeconds, maxAge: service.configuration.cacheMaxAge,
                    links: [Self.profileLink], vary: "Accept"
                ).response(to: request)
                service.configuration.access?.apply(grant, to: &response, maxAge: service.configuration.cacheMaxAge)
                return response
            }
        }
        routes("iiif_image") {
            $0.get(":identifier/:region/:size/:rotation/:file") { request, context in
                let parameters = context.parameters
                // Parsed before the identifier is looked up, so a malformed request is a 400 whatever it names.
                service.metrics.record(.parse)
                var imageRequest = try IIIFImageRequest(
                    region: try parameters.require("region"), size: try parameters.require("size"),
                    rotation: try parameters.require("rotation"), qualityAndFormat: try parameters.require("file"))
                if imageRequest.negotiatesFormat {
                    imageRequest.format = .negotiated(accept: request.headers[values: .accept])
                }
                let (source, grant) = try await service.resolve(try parameters.require("identifier"), for: request)
                let (body, resolved) = try await service.image(for: source, request: imageRequest, grant: grant)
                let base = imageBase(authority: request.head.authority, mount: context.mountPath(less: 5), source: source)
                var response = imageResponse(body, source: source, request: imageRequest, resolved: resolved, imageBase: base, grant: grant)
                    .response(to: request)
                service.configuration.access?.apply(grant, to: &response, maxAge: service.configuration.cacheMaxAge)
                return response
            }
        }
    }

    /// An image's id: the server's base URL, where the routes are mounted, and its identifier.
    private func imageBase(authority: String?, mount: String, source: ResolvedSource) -> String {
        service.configuration.baseURL(authority: authority) + mount + "/" + source.encodedIdentifier
    }

    /// The answer to an info.json request `denied` refused: its status, and the Authorization
    /// Flow services (no size, nothing of the image) so that a viewer can offer to log in; nil when
    /// the auth routes are not mounted.
    private func withheld(_ identifier: String, denied: AccessDenied, base: String, mount: String) throws -> Response? {
        let relativePath = try IdentifierResolver.relativePath(of: identifier)
        let encoded = PercentEncoding.encode(relativePath)
        guard let probe = authService(for: encoded, base: base, mount: mount) else { return nil }
        let body = IIIFImageInfo.withheld(id: base + mount + "/" + encoded, service: probe)
        return Response(
            status: denied.status, headers: [.contentType: "application/json", .cacheControl: "no-store", .vary: "Cookie, Authorization"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    /// The Authorization Flow services of the image `encodedIdentifier` names (one not everyone may
    /// see whole), when access control is on and its routes are mounted.
    private func authService(for encodedIdentifier: String, base: String, mount: String) -> IIIFAuthService? {
        guard let access = service.configuration.access, let auth else { return nil }
        let authBase = base + auth.resolved(from: mount)
        let texts = access.policy.texts
        return .probe(
            authBase + "/probe/" + encodedIdentifier, access: authBase + "/login", token: authBase + "/token",
            logout: authBase + "/logout", label: texts.label, heading: texts.heading, note: texts.note, confirmLabel: texts.confirmLabel,
            logoutLabel: texts.logoutLabel)
    }

    /// The response to an image request, from its body and the request resolved.
    private func imageResponse(
        _ body: ByteBuffer, source: ResolvedSource, request: IIIFImageRequest, resolved: ResolvedIIIFRequest, imageBase: String,
        grant: AccessControl.Grant = .open
    ) -> CacheableResponse {
        CacheableResponse(
            body: body, contentType: resolved.format.mediaType,
            entityTag: service.answers.entityTag(source, grant.cacheKeyPrefix + "iiif|" + resolved.canonicalPath),
            lastModified: source.identity.modificationSeconds, maxAge: service.configuration.cacheMaxAge,
            links: [Self.profileLink, "<\(Self.linkTarget(imageBase))/\(resolved.canonicalPath)>;rel=\"canonical\""],
            vary: request.negotiatesFormat ? "Accept" : nil)
    }

    /// The response to `head` when it is a GET of an aligned tile, under `mount` (where the routes
    /// are mounted), of a pyramid already built, whose stored bytes are the answer
    /// (``StoredTileReader/tile(identifier:parse:)``), through `shortcuts`; nil for anything
    /// else, and for any failure, which the route then meets and reports. Synchronous: for
    /// ``ImmediateResponseHandler``, on the event loop.
    func immediateTileResponse(to head: HTTPRequest, mount: String, shortcuts: StoredTileShortcuts) -> (head: HTTPResponse, body: ByteBuffer)? {
        guard head.method == .get, let target = head.path, target.hasPrefix(mount + "/") else { return nil }
        let key = StoredTileShortcuts.Key(authority: head.authority, target: target)
        if let known = shortcuts.entry(for: key) {
            // A restricted image's tile is answered here only to a request whose access cookie
            // meets what every name of the image asks; any other goes to the router.
            if let groups = known.source.requiredGroups {
                guard let access = service.configuration.access, access.cookieMeets(groups, headers: head.headerFields) else { return nil }
            }
            return known.response(to: head)
        }
        var path = target[...]
        if let end = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<end] }
        // The route's parameters, as the router splits them (raw, percent-escapes and all).
        let parts = path.dropFirst(mount.count + 1).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 5, !parts.contains(where: \.isEmpty),
            let (source, body, request, resolved, tilePath) = service.storedTiles.tile(
                identifier: String(parts[0]),
                parse: {
                    service.metrics.record(.parse)
                    guard
                        let request = try? IIIFImageRequest(
                            region: String(parts[1]), size: String(parts[2]), rotation: String(parts[3]), qualityAndFormat: String(parts[4])),
                        !request.negotiatesFormat
                    else { return nil }
                    return request
                })
        else { return nil }
        var restriction: StoredTileShortcuts.Restriction?
        if !service.isOpen(source) {
            guard let access = service.configuration.access else { return nil }
            let groups = access.requiredGroups(of: service.names(of: source))
            guard access.cookieMeets(groups, headers: head.headerFields) else { return nil }
            restriction = .init(groups: groups, fields: access.cacheHeaders(for: .personal, maxAge: service.configuration.cacheMaxAge))
        }
        let base = imageBase(authority: head.authority, mount: mount, source: source)
        let response = imageResponse(body, source: source, request: request, resolved: resolved, imageBase: base)
        return shortcuts.remember(key, source: source, tilePath: tilePath, response: response, restriction: restriction)?
            .response(to: head, body: body)
    }

    /// `url` for a `Link` header: a page's `;` written `%3B` (the same identifier), since Link
    /// parsers that split on `;` (the IIIF validator's among them) cut the URL there.
    static func linkTarget(_ url: String) -> String {
        url.replacing(";", with: "%3B")
    }

    /// JSON-LD (with the IIIF context as profile) unless the client asks for plain JSON and not
    /// JSON-LD; IIIF 3.0 §5.1 makes JSON-LD the answer when no Accept header is sent.
    static func infoContentType(accept: [String], jsonLD: String = jsonLDType) -> String {
        let asked = accept.joined(separator: ",").lowercased()
        if asked.contains("application/json") && !asked.contains("application/ld+json") { return "application/json" }
        return jsonLD
    }
}
