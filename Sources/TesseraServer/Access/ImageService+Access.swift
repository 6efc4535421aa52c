import Hummingbird
import TesseraCore
import TesseraIIIF

// The routes' way to an image: through access control.
extension ImageService {
    /// The source `identifier` names and what `request` may see of it, decided before it is looked
    /// up (so a request that may see nothing of it cannot tell whether it exists), and again under
    /// its other names: the file without its page suffix, and a symbolic link's target.
    ///
    /// - Throws: ``AccessDenied`` as access control decides; what ``resolve(_:)`` throws.
    func resolve(_ identifier: String, for request: Request) async throws -> (source: ResolvedSource, grant: AccessControl.Grant) {
        guard let access = configuration.access, access.policy.restrictsAnything else { return (try await resolve(identifier), .open) }
        // An identifier that does not decode is refused by the lookup, whatever it names.
        let asked = try? IdentifierResolver.relativePath(of: identifier)
        var grant = AccessControl.Grant.open
        if let asked { grant = try await access.grant(forPath: asked, request: request) }
        let source = try await resolve(identifier)
        for name in otherNames(of: source) where name != asked {
            grant = grant.narrowed(to: try await access.grant(forPath: name, request: request))
        }
        return (source, grant)
    }

    /// Whether everyone may see `source` whole, under each of its names (policy alone, no
    /// credentials): what the event loop's shortcut asks.
    func isOpen(_ source: ResolvedSource) -> Bool {
        guard let access = configuration.access, access.policy.restrictsAnything else { return true }
        return otherNames(of: source).allSatisfy(access.isOpen)
    }

    /// Every name of `source` (``otherNames(of:)``), sorted.
    func names(of source: ResolvedSource) -> [String] { otherNames(of: source).sorted() }

    /// The names `source` goes by: its identifier's path without a page suffix, and the path of
    /// the file it reaches (a symbolic link's target) under the root.
    private func otherNames(of source: ResolvedSource) -> Set<String> {
        var names: Set = [source.relativePath]
        if let path = source.path, let root = resolver?.rootPath, path.hasPrefix(root + "/") { names.insert(String(path.dropFirst(root.count + 1))) }
        return names
    }

    /// What `request` may see of `source` whole, for routes that give nothing less than the
    /// whole (files, videos, Deep Zoom descriptors): a substitute is not enough.
    ///
    /// - Throws: ``AccessDenied`` (401) under a substitute grant.
    static func requireWhole(_ grant: AccessControl.Grant) throws {
        if case .substitute = grant { throw AccessDenied(.unauthorized, "authorization required") }
    }

    /// `body` of `source` as `request` is answered it, under `grant`: its entity tag made of
    /// `key` (the answer's canonical request), cacheable as the grant allows.
    func response(_ body: ByteBuffer, _ type: String, key: String, source: ResolvedSource, request: Request, grant: AccessControl.Grant)
        -> Response
    {
        var response = CacheableResponse(
            body: body, contentType: type, entityTag: answers.entityTag(source, key), lastModified: source.identity.modificationSeconds,
            maxAge: configuration.cacheMaxAge
        ).response(to: request)
        configuration.access?.apply(grant, to: &response, maxAge: configuration.cacheMaxAge)
        return response
    }
}
