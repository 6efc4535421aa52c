import TesseraCore
import TesseraIIIF
import TesseraTiles

/// Pyramids being built in the background, each once per source and kind: a source zoomed into
/// gets one while its requests go on being answered from the source.
final class BackgroundBuilds: Sendable {
    /// Where pyramids are found and built (the shared store, or this server's directory).
    let pyramids: any PyramidStoring
    /// Builds running now, by source key and kind.
    private let running = Locked([String: Task<Void, Never>]())

    init(pyramids: any PyramidStoring) { self.pyramids = pyramids }

    /// Starts building `kind`'s pyramid for `source` if it is not built or being built, without
    /// waiting for it.
    func start(_ kind: PyramidKind, source: ResolvedSource, imageSize: PixelSize) {
        let key = source.key + "/" + kind.rawValue
        let pyramids = self.pyramids
        running.withLock { builds in
            guard builds[key] == nil else { return }
            builds[key] = Task.detached(priority: .background) {
                _ = try? await pyramids.pyramid(kind, for: source, imageSize: imageSize)
                self.running.withLock { _ = $0.removeValue(forKey: key) }
            }
        }
    }

    /// Returns once no pyramid is being built (for tests and orderly shutdown).
    func finished() async {
        while let build = running.withLock({ $0.values.first }) { await build.value }
    }
}
