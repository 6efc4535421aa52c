import FoundationEssentials
import HTTPTypes
import Hummingbird
import NIOCore
import TesseraCore
import TesseraIIIF

/// IIIF Presentation API 3.0, mounted anywhere (`/presentation/3` by `tessera serve`):
/// `collection` (the root's folders and files), `collection/{folder}`, and `{identifier}/manifest`
/// (an image, document or video; or a folder, as one manifest of its images). Every id is built
/// from where the routes are mounted, and the image services from where the IIIF routes are.
struct PresentationRoutes {
    let service: PresentationService
    /// Where the IIIF Image routes are.
    let iiif: MountLocation
    /// Where `video/…` and `files/…` are.
    let media: MountLocation

    private var configuration: ServerConfiguration { service.images.configuration }

    func add<Context: RequestContext>(to routes: LabelledRoutes<Context>) {
        routes("presentation_collection") {
            $0.get("collection") { request, context in
                let urls = urls(request, mount: context.mountPath(less: 1))
                return respond(request, try service.folderAnswer(.collection, of: "", urls: urls, logger: context.logger))
            }
            $0.get("collection/:folder") { request, context in
                let folder = try IdentifierResolver.relativePath(of: try context.parameters.require("folder"))
                let urls = urls(request, mount: context.mountPath(less: 2))
                return respond(request, try service.folderAnswer(.collection, of: folder, urls: urls, logger: context.logger))
            }
        }
        routes("presentation_manifest") {
            $0.get(":identifier/manifest") { request, context in
                let identifier = try context.parameters.require("identifier")
                let urls = urls(request, mount: context.mountPath(less: 2))
                let source: ResolvedSource
                let grant: AccessControl.Grant
                do {
                    // A substitute grant may have the manifest: its image service then answers with the substitute.
                    (source, grant) = try await service.images.resolve(identifier, for: request)
                } catch let error as IdentifierError where error.reason == .notFound {
                    // Not a file: a folder, as one manifest of its images.
                    let folder = try IdentifierResolver.relativePath(of: identifier)
                    guard let resolver = service.lister.resolver, (try? resolver.resolveDirectory(folder)) != nil else { throw error }
                    return respond(request, try service.folderAnswer(.manifest, of: folder, urls: urls, logger: context.logger))
                }
                let (body, version) = try await service.manifest(of: source, urls: urls, logger: context.logger)
                let contentType = IIIFRoutes.infoContentType(accept: request.headers[values: .accept], jsonLD: PresentationJSON.mediaType)
                var response = CacheableResponse(
                    body: body, contentType: contentType,
                    entityTag: service.images.answers.entityTag(source, version + "|" + contentType),
                    lastModified: source.identity.modificationSeconds, maxAge: configuration.cacheMaxAge, vary: "Accept"
                ).response(to: request)
                configuration.access?.apply(grant, to: &response, maxAge: configuration.cacheMaxAge)
                return response
            }
        }
    }

    /// The URLs of documents answered under `mount` (where these routes are).
    private func urls(_ request: Request, mount: String) -> PresentationURLs {
        let base = configuration.baseURL(authority: request.head.authority)
        return PresentationURLs(presentation: base + mount, iiif: base + iiif.resolved(from: mount), media: base + media.resolved(from: mount))
    }

    /// A folder's document (checked against the folder on each request, since a folder changes
    /// without any one file changing): its entity tag is its version's, so an unchanged folder
    /// costs the client a 304 and the server one `stat` per entry; otherwise it is written as it is
    /// made, a batch of entries at a time.
    private func respond(_ request: Request, _ answer: PresentationService.FolderAnswer) -> Response {
        let contentType = IIIFRoutes.infoContentType(accept: request.headers[values: .accept], jsonLD: PresentationJSON.mediaType)
        let body = ResponseBody { writer in
            try await answer.send { piece in try await writer.write(ByteBuffer(bytes: piece)) }
            try await writer.finish(nil)
        }
        return CacheableResponse(
            body: ByteBuffer(), contentType: contentType, entityTag: EntityTag.make((answer.version + "\u{0}" + contentType).utf8),
            lastModified: answer.lastModified, maxAge: nil, vary: "Accept"
        ).response(to: request, streaming: body)
    }
}
