import NIOCore
import TesseraCodecs
import TesseraCore
import TesseraIIIF

/// The one way an IIIF request's pixels are made, whichever door it came in by (IIIF, Deep Zoom):
/// the renderer its source's plan names.
struct PlanRenderer: Sendable {
    let inPlace: InPlaceRenderer
    let derived: DerivedRenderer
    let animation: AnimationRenderer

    /// The encoded answer to `request` of `source`: an animation when it is one
    /// (``AnimationRenderer/answers(_:properties:)``), else read in place or from the levels the
    /// server makes, as `plan` says.
    func render(_ request: ResolvedIIIFRequest, of source: ResolvedSource, plan: SourcePlan) async throws -> ByteBuffer {
        if AnimationRenderer.answers(request, properties: plan.properties) {
            return try await animation.render(request, of: source, properties: plan.properties)
        }
        switch plan.mode {
        case .inPlace: return try await inPlace.render(request, of: source, plan: plan)
        case .derived, .resampled: return try await derived.render(request, of: source, plan: plan)
        }
    }
}
