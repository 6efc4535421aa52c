import FoundationEssentials
import HTTPTypes
import Hummingbird
import NIOCore
import TesseraCore
import TesseraIIIF

/// The IIIF Authorization Flow 2.0 services (`auth` in `tessera serve`): `probe/{identifier}`
/// (`AuthProbeResult2`), `login` (the active access service: a form, then the access cookie),
/// `token` (the token service: a page that posts a probe token to the viewer's origin) and
/// `logout`. What they answer is decided by ``AccessControl``; nothing is kept per session.
struct AuthRoutes {
    let service: ImageService
    let access: AccessControl
    /// Where the IIIF routes are, for probe results' substitutes.
    let iiif: MountLocation

    func add<Context: RequestContext>(to routes: LabelledRoutes<Context>) {
        routes("auth_probe") { $0.get("probe/:identifier") { request, context in try await probe(request, context: context) } }
        routes("auth_login") {
            $0.get("login") { request, _ in
                page(title: access.policy.texts.label, body: loginForm(origin: request.uri.queryParameters["origin"].map(String.init) ?? ""))
            }
            $0.post("login") { request, context in try await logIn(request, context: context) }
        }
        routes("auth_token") { $0.get("token") { request, _ in try await token(request) } }
        routes("auth_logout") {
            $0.get("logout") { _, _ in
                var response = page(
                    title: access.policy.texts.logoutLabel, body: "<p>Signed out. This window closes by itself.</p>", script: "window.close();")
                response.headers[.setCookie] = cookie("", maxAge: 0)
                return response
            }
        }
    }

    /// The probe service's answer for the identifier in the path: always 200, its status what the
    /// resource would answer this request (with the policy's heading and note, and a substitute
    /// where the rule has one).
    private func probe<Context: RequestContext>(_ request: Request, context: Context) async throws -> Response {
        let identifier = try context.parameters.require("identifier")
        let path = try IdentifierResolver.relativePath(of: identifier)
        let mount = context.mountPath(less: 2)
        let probeID = service.configuration.baseURL(authority: request.head.authority) + mount + "/probe/" + identifier
        let rule = access.policy.rule(for: path)
        let texts = access.policy.texts
        var result: IIIFAuthProbeResult
        do {
            let grant = try await access.grant(forPath: path, request: request, probing: true)
            if case .substitute = grant {
                result = IIIFAuthProbeResult(
                    id: probeID, status: try await access.prober(of: request) == nil ? 401 : 403,
                    heading: LanguageMap([texts.heading], language: "en"), note: LanguageMap([texts.note], language: "en"))
            } else {
                _ = try await service.resolve(identifier)
                result = IIIFAuthProbeResult(id: probeID, status: 200)
            }
        } catch let denied as AccessDenied {
            result = IIIFAuthProbeResult(
                id: probeID, status: Int(denied.status.code), heading: LanguageMap([texts.heading], language: "en"),
                note: LanguageMap([texts.note], language: "en"))
        }
        if result.status != 200, let substitute = rule.substitute {
            let image = service.configuration.baseURL(authority: request.head.authority) + iiif.resolved(from: mount) + "/" + identifier
            result.substitute = [
                ContentResource(
                    id: image + "/full/max/0/default.jpg", type: "Image", format: "image/jpeg",
                    label: LanguageMap(["At most \(substitute.maxSize) pixels"], language: "en"), service: [ImageServiceReference(id: image)])
            ]
        }
        // The probe itself is always 200: its status says what the resource would answer.
        return Response(
            status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store", .vary: "Cookie, Authorization"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: result.json())))
    }

    /// A sign-in: the access cookie for a user whose name and password match, else the form again
    /// (401), or 429 once the name or address has failed too often.
    private func logIn<Context: RequestContext>(_ request: Request, context: Context) async throws -> Response {
        let form = Self.form(try await request.body.collect(upTo: 8192))
        let name = form["username"] ?? "", password = form["password"] ?? "", origin = form["origin"] ?? ""
        let peer = (context as? any RemoteAddressRequestContext)?.remoteAddress
        let address =
            service.configuration.clientLimits?.client(peer: peer, forwardedFor: request.headers[values: ClientLimits.forwardedFor])
            ?? peer?.ipAddress ?? "unknown"
        guard access.failedLogins.allows(user: name, address: address) else {
            var response = page(
                title: "Too many attempts", body: "<p>Too many failed sign-ins. Try again in a few minutes.</p>", status: .tooManyRequests)
            response.headers[.retryAfter] = "900"
            return response
        }
        // scrypt takes a tenth of a second: off the event loop.
        let user = try await service.executor.run(priority: .high) { _ in access.users.authenticate(name, password: password) }
        guard let user else {
            access.failedLogins.fail(user: name, address: address)
            return page(
                title: access.policy.texts.label, body: "<p role=\"alert\">Wrong name or password.</p>" + loginForm(origin: origin),
                status: .unauthorized)
        }
        let token = AccessToken(
            kind: .access, user: user.name, groups: user.groups,
            expires: AccessControl.now + Int(access.policy.tokenLifetime.components.seconds))
        var response = page(
            title: "Signed in", body: "<p>Signed in as \(Self.escape(user.name)). This window closes by itself.</p>",
            script: "window.close();")
        response.headers[.setCookie] = cookie(
            try token.encoded(keys: access.keys), maxAge: Int(access.policy.tokenLifetime.components.seconds))
        return response
    }

    /// The token service's page: it posts a probe token (or the reason there is none) to the
    /// viewer's origin, when that origin may have one.
    private func token(_ request: Request) async throws -> Response {
        let query = request.uri.queryParameters
        let origin = query["origin"].map(String.init) ?? ""
        var message: [String: JSONScalar] = ["@context": .string("http://iiif.io/api/auth/2/context.json")]
        if let id = query["messageId"] { message["messageId"] = .string(String(id)) }
        let own = service.configuration.baseURL(authority: request.head.authority)
        if query["messageId"] == nil || origin.isEmpty {
            message["type"] = .string("AuthAccessTokenError2")
            message["profile"] = .string("invalidRequest")
        } else if origin != own && !access.policy.tokenOrigins.contains(origin) {
            message["type"] = .string("AuthAccessTokenError2")
            message["profile"] = .string("invalidOrigin")
        } else {
            do {
                if let who = try await access.principal(of: request) {
                    let lifetime = Int(access.policy.tokenLifetime.components.seconds)
                    let probe = AccessToken(
                        kind: .probe, user: who.user, groups: who.groups, expires: min(who.expires, AccessControl.now + lifetime))
                    message["type"] = .string("AuthAccessToken2")
                    message["accessToken"] = .string(try probe.encoded(keys: access.keys))
                    message["expiresIn"] = .number(probe.expires - AccessControl.now)
                } else {
                    message["type"] = .string("AuthAccessTokenError2")
                    message["profile"] = .string(access.cookieState(of: request).rawValue + "Aspect")
                }
            } catch let error as ServerError {
                // The external check is down: the viewer is told so, rather than left waiting.
                message["type"] = .string("AuthAccessTokenError2")
                message["profile"] = .string("unavailable")
                message["note"] = .object(["en": .string(error.message)])
            }
        }
        // An origin that is not a URL's origin cannot be a postMessage target; "*" never is one here.
        let target = origin.hasPrefix("http://") || origin.hasPrefix("https://") ? origin : own
        let script = "window.parent.postMessage(\(JSONScalar.object(message)), \(JSONScalar.string(target).json));"
        var response = page(title: "Token", body: "", script: script)
        // Framed by the viewers allowed to have tokens only.
        response.headers[Self.policyField] = (response.headers[Self.policyField] ?? "")
            .replacing("frame-ancestors 'none'", with: "frame-ancestors 'self'" + access.policy.tokenOrigins.map { " " + $0 }.joined())
        return response
    }

    private static let policyField = HTTPField.Name("Content-Security-Policy")!

    /// The access cookie's `Set-Cookie` value.
    private func cookie(_ value: String, maxAge: Int) -> String {
        "\(AccessControl.cookieName)=\(value); Path=/; Max-Age=\(maxAge); HttpOnly; SameSite=\(access.policy.sameSite)"
            + (access.policy.secureCookie ? "; Secure" : "")
    }

    private func loginForm(origin: String) -> String {
        """
        <form method="post" action="login">
        <input type="hidden" name="origin" value="\(Self.escape(origin))">
        <p><label>Name <input name="username" autocomplete="username" required autofocus></label></p>
        <p><label>Password <input name="password" type="password" autocomplete="current-password" required></label></p>
        <p><button type="submit">\(Self.escape(access.policy.texts.confirmLabel))</button></p>
        </form>
        """
    }

    /// A small page of Tessera's own: no third-party anything, scripts only by this response's
    /// nonce, never framed (the token page relaxes that for the allowed viewers).
    private func page(title: String, body: String, script: String? = nil, status: HTTPResponse.Status = .ok) -> Response {
        let nonce = (try? AccessSecrets.randomBytes(16)).map(AccessSecrets.base64URL) ?? "none"
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
            <title>\(Self.escape(title))</title>
            <style>body{font:16px system-ui,sans-serif;max-width:28em;margin:3em auto;padding:0 1em}input{font:inherit}</style>
            </head><body><h1>\(Self.escape(title))</h1>
            \(body)\(script.map { "<script nonce=\"\(nonce)\">\($0)</script>" } ?? "")
            </body></html>
            """
        return Response(
            status: status,
            headers: [
                .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
                Self.policyField:
                    "default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-\(nonce)'; form-action 'self'; frame-ancestors 'none'",
                HTTPField.Name("Referrer-Policy")!: "no-referrer",
            ],
            body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    /// `text` safe in HTML text and attribute values.
    static func escape(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// The fields of an `application/x-www-form-urlencoded` body.
    static func form(_ body: ByteBuffer) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in String(buffer: body).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring) -> String { PercentEncoding.decode(String(text).replacing("+", with: " ")) ?? "" }
            fields[decode(parts[0])] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return fields
    }

}

/// A JSON value of the few kinds the token page writes, written with full escaping (and `<` as
/// `\u003c`, so the text is safe inside a `<script>` element).
enum JSONScalar: CustomStringConvertible {
    case string(String)
    case number(Int)
    indirect case object([String: JSONScalar])

    var json: String {
        switch self {
        case .string(let text): IIIFImageInfo.jsonString(text).replacing("<", with: "\\u003c")
        case .number(let value): String(value)
        case .object(let members):
            "{" + members.sorted { $0.key < $1.key }.map { JSONScalar.string($0.key).json + ":" + $0.value.json }.joined(separator: ",") + "}"
        }
    }

    var description: String { json }
}
