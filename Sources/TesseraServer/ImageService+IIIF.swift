import NIOCore
import TesseraCodecs
import TesseraCore
import TesseraIIIF
import TesseraTiles

// IIIF: info.json, and image requests answered with stored tiles or rendered as each source's plan says.
extension ImageService {

    /// The info.json body for `source`, whose service `id` is `id` (``SourcePlan/imageInfo(id:limits:grant:partOf:auth:)``).
    func info(
        for source: ResolvedSource, id: String, partOf: ResourceReference? = nil, grant: AccessControl.Grant = .open,
        auth: IIIFAuthService? = nil
    ) async throws -> ByteBuffer {
        try await answers.answer(grant.cacheKeyPrefix + "info|" + id + "|" + (partOf?.id ?? "") + "|" + (auth?.id ?? ""), source: source) {
            let info = try await self.planner.plan(for: source).imageInfo(
                id: id, limits: self.configuration.limits, grant: grant, partOf: partOf, auth: auth)
            return ByteBuffer(string: info.json())
        }
    }

    /// The encoded image an IIIF request asks for, and the request resolved (for its canonical form).
    /// - Parameter grant: what the requester may see; a substitute's requests are held to its size
    ///   (``AccessDenied`` for a finer one) and `max` is its largest.
    func image(
        for source: ResolvedSource, request: IIIFImageRequest, grant: AccessControl.Grant = .open
    ) async throws -> (body: ByteBuffer, resolved: ResolvedIIIFRequest) {
        let plan = try await planner.plan(for: source)
        var limits = configuration.limits
        let full = plan.properties.displaySize
        if case .substitute(let substitute) = grant {
            let fitted = substitute.fittedSize(of: full)
            (limits.maxWidth, limits.maxHeight) = (fitted.width, fitted.height)
        }
        let resolved = try request.resolved(imageSize: full, limits: limits)
        if case .substitute(let substitute) = grant {
            guard substitute.allows(region: resolved.region, scaledTo: resolved.scaledSize, full: full) else { throw AccessDenied.beyond(substitute) }
            if substitute.grayOnly && resolved.quality == .color { throw AccessDenied.colour }
        }
        // A marked substitute's tiles are not the stored ones.
        let marks = grant.marks
        if marks == nil, let stored = storedTiles.body(answering: resolved, of: source, plan: plan) { return (stored, resolved) }
        let body = try await answers.answer(grant.cacheKeyPrefix + "iiif|" + resolved.canonicalPath, source: source) {
            // What a render costs its client (per-client limits): the region's pixels at the level that serves it.
            let step = 1 << plan.reduction(region: resolved.region, scaledSize: resolved.scaledSize)
            ClientLimits.charge(pixels: resolved.region.width / step * (resolved.region.height / step))
            let body = try await self.renderer.render(resolved, of: source, plan: plan)
            guard let marks else { return body }
            let quality = self.configuration.jpegQuality
            return try await self.executor.run { _ in try SubstituteMarking.apply(marks, to: body, format: resolved.format, jpegQuality: quality) }
        }
        return (body, resolved)
    }
}
