import Hummingbird
import TesseraCodecs
import TesseraCore
import TesseraIIIF

/// `files/{identifier}`: an image or document under the root as it is stored (ranges, validators),
/// what manifests offer as `rendering`. Only files Tessera reads as images are served, so the
/// route is not a way to fetch any file under the root (videos have `video/…`).
struct FileRoutes {
    let images: ImageService

    func add<Context: RequestContext>(to routes: LabelledRoutes<Context>) {
        routes("files") {
            $0.get("files/:identifier") { request, context in
                // The stored file is the whole image: a substitute grant does not reach it.
                let (source, grant) = try await images.resolve(try context.parameters.require("identifier"), for: request)
                try ImageService.requireWhole(grant)
                guard source.page == nil, let path = source.path else {
                    throw ServerError(.notFound, "no file with that identifier")
                }
                let properties = try await images.planner.properties(of: source)
                var response = try await FileResponse.send(
                    path: path, identity: source.identity, mediaType: properties.format.mediaType, request: request, context: context)
                if response.status == .ok || response.status == .partialContent {
                    response.headers[.cacheControl] = "public, max-age=\(images.configuration.cacheMaxAge)"
                    let name = PresentationPieces.split(source.relativePath).name
                    response.headers[.contentDisposition] = "inline; filename*=UTF-8''" + PercentEncoding.encode(name)
                }
                images.configuration.access?.apply(grant, to: &response, maxAge: images.configuration.cacheMaxAge)
                return response
            }
        }
    }
}
