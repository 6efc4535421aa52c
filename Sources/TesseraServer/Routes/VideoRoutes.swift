import FoundationEssentials
import HTTPTypes
import Hummingbird
import NIOCore
import TesseraCore
import TesseraIIIF
import TesseraVideo

/// The trimmer's video API, mounted anywhere (at the root by `tessera serve`), under `video/` and
/// `jobs/`: the file itself (ranges, so `<video>` can seek), its info.json, frame
/// sprites with their WebVTT tracks, and clip exports as background jobs.
struct VideoRoutes {
    let videos: VideoService
    /// Resolves identifiers as the image routes do, access checked.
    let images: ImageService
    let jobs: TrimJobs

    private var configuration: ServerConfiguration { images.configuration }

    func add<Context: RequestContext>(to routes: LabelledRoutes<Context>) {
        routes("video") {
            $0.get("video/:identifier") { request, context in
                let (source, grant) = try await whole(try context.parameters.require("identifier"), request)
                // Only videos Tessera reads are served: /video/ is not a way to fetch any file under the root.
                _ = try await videos.asset(source)
                return answer(try await file(source, request: request, context: context), grant)
            }
            $0.get("video/:identifier/info.json") { request, context in
                let (source, grant) = try await whole(try context.parameters.require("identifier"), request)
                let id = PercentEncoding.encode(source.relativePath)
                return cached(try await videos.info(source, id: id), type: "application/json", tag: "video-info|" + id, source, grant, request)
            }
            $0.get("video/:identifier/sprite.jpg") { request, context in
                let (source, grant) = try await whole(try context.parameters.require("identifier"), request)
                let sprite = try spriteRequest(request)
                return cached(try await videos.sprite(source, sprite), type: "image/jpeg", tag: "sprite|" + sprite.query, source, grant, request)
            }
            $0.get("video/:identifier/thumbnails.vtt") { request, context in
                let (source, grant) = try await whole(try context.parameters.require("identifier"), request)
                let sprite = try spriteRequest(request)
                let spriteURL =
                    context.mountPath(less: 3) + "/video/" + PercentEncoding.encode(source.relativePath) + "/sprite.jpg?" + sprite.query
                return cached(
                    try await videos.track(source, sprite, spriteURL: spriteURL), type: "text/vtt; charset=utf-8", tag: "vtt|" + sprite.query,
                    source, grant, request)
            }
            $0.post("video/:identifier/trim") { request, context in try await trim(request, context: context) }
        }
        routes("jobs") {
            $0.get("jobs/:id") { request, context in
                let id = try context.parameters.require("id")
                guard TrimJobs.isValidID(id), let status = jobs.status(id) else { throw ServerError(.notFound, "no such job") }
                try await checkJob(id, request)
                return Response(
                    status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                    body: ResponseBody(byteBuffer: try JSONBody.encode(status)))
            }
            $0.get("jobs/:id/result") { request, context in try await jobResult(request, context: context) }
        }
    }

    /// `POST video/{identifier}/trim`: a clip export started as a job, 202 with where it is.
    private func trim<Context: RequestContext>(_ request: Request, context: Context) async throws -> Response {
        let (source, _) = try await whole(try context.parameters.require("identifier"), request)
        let body = try await request.body.collect(upTo: 4096)
        guard let order = try? JSONDecoder().decode(TrimOrder.self, from: Data(body.readableBytesView)) else {
            throw ServerError(.badInput, "the body must be JSON: {\"from\": seconds, \"to\": seconds, \"exact\": true|false}")
        }
        let asset = try await videos.asset(source)
        let id = try jobs.start(source, asset: asset, from: order.from, to: order.to, exact: order.exact ?? false)
        let url = context.mountPath(less: 3) + "/jobs/" + id
        return Response(
            status: .accepted, headers: [.location: url, .contentType: "application/json", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: "{\"id\":\"\(id)\",\"url\":\"\(url)\"}\n")))
    }

    /// `GET jobs/{id}/result`: the finished clip as a download; 409 while there is none.
    private func jobResult<Context: RequestContext>(_ request: Request, context: Context) async throws -> Response {
        let id = try context.parameters.require("id")
        guard TrimJobs.isValidID(id) else { throw ServerError(.notFound, "no such job") }
        try await checkJob(id, request)
        switch jobs.clip(id) {
        case .failure(.unknown): throw ServerError(.notFound, "no such job")
        case .failure(let reason):
            // 409: the job exists but has no clip (yet); its status says why.
            let message =
                reason == .failed ? "the export failed; see \(context.mountPath(less: 3))/jobs/\(id)\n" : "the export is not finished\n"
            return Response(
                status: .conflict, headers: [.contentType: "text/plain; charset=utf-8", .retryAfter: "1"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: message)))
        case .success(let clip):
            guard let identity = FileIdentity(path: clip.path) else { throw ServerError(.notFound, "the clip has expired") }
            var response = try await FileResponse.send(
                path: clip.path, identity: identity, mediaType: clip.mediaType, request: request, context: context)
            response.headers[.contentDisposition] = "attachment; filename=\"\(clip.fileName)\""
            response.headers[.cacheControl] = "no-store"
            return response
        }
    }

    /// `body`, a derivative of the video `source` (its entity tag made of the source and `tag`),
    /// answered with the caching headers of the source and of `grant`.
    private func cached(
        _ body: ByteBuffer, type: String, tag: String, _ source: ResolvedSource, _ grant: AccessControl.Grant, _ request: Request
    ) -> Response {
        answer(
            CacheableResponse(
                body: body, contentType: type, entityTag: images.answers.entityTag(source, tag),
                lastModified: source.identity.modificationSeconds, maxAge: configuration.cacheMaxAge
            ).response(to: request), grant)
    }

    /// The video `identifier` names and `request`'s grant, when it may see it whole (a video has
    /// no substitute).
    private func whole(_ identifier: String, _ request: Request) async throws -> (ResolvedSource, AccessControl.Grant) {
        let (source, grant) = try await images.resolve(identifier, for: request)
        try ImageService.requireWhole(grant)
        return (source, grant)
    }

    /// `response` with the caching headers `grant` calls for.
    private func answer(_ response: Response, _ grant: AccessControl.Grant) -> Response {
        var response = response
        configuration.access?.apply(grant, to: &response, maxAge: configuration.cacheMaxAge)
        return response
    }

    /// Whether `request` may see the video job `id` exports from, asked again on every request
    /// (a job id passed on does not pass on its starter's authorisation).
    private func checkJob(_ id: String, _ request: Request) async throws {
        guard let access = configuration.access, let path = jobs.identifier(of: id) else { return }
        try ImageService.requireWhole(try await access.grant(forPath: path, request: request))
    }

    private func spriteRequest(_ request: Request) throws -> SpriteRequest {
        let query = request.uri.queryParameters
        return try SpriteRequest(
            frames: query["frames"].map(String.init), height: query["height"].map(String.init), mode: query["mode"].map(String.init))
    }

    private func file(_ source: ResolvedSource, request: Request, context: some RequestContext) async throws -> Response {
        let path = try VideoService.filePath(of: source)
        var response = try await FileResponse.send(
            path: path, identity: source.identity, mediaType: VideoService.mediaType(of: path),
            request: request, context: context)
        if response.status == .ok || response.status == .partialContent {
            response.headers[.cacheControl] = "public, max-age=\(configuration.cacheMaxAge)"
        }
        return response
    }
}

/// The body of `POST /video/{identifier}/trim`: seconds, and whether to re-encode for an exact start.
struct TrimOrder: Decodable {
    var from: Double
    var to: Double
    var exact: Bool?
}
