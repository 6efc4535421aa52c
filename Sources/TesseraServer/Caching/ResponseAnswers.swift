import NIOCore
import TesseraCodecs
import TesseraCore
import TesseraIIIF

/// Encoded answers, kept and shared: a body for a key of a source comes from the response cache
/// when it is there, else is made once for every request that asks for it at the same time, under
/// the request deadline, and kept. IIIF, Deep Zoom, video sprites and manifests all answer through
/// it, so they share one memory budget, one deadline and one single flight.
final class ResponseAnswers: Sendable {
    private let cache: ResponseCache
    /// Renders, each done once for all who ask at the same time, and cancelled when all of them
    /// have gone (closed their connections, or passed their deadline).
    private let renders: SingleFlight<ByteBuffer>
    private let deadline: Duration
    private let colorManagement: ColorManagement
    private let metrics: ServerMetrics

    init(configuration: ServerConfiguration, metrics: ServerMetrics) {
        cache = ResponseCache(byteLimit: configuration.responseCacheByteLimit)
        renders = SingleFlight(cancelsAbandonedWork: true, onAbandoned: metrics.recordAbandonedWork)
        deadline = configuration.requestTimeout
        colorManagement = configuration.colorManagement
        self.metrics = metrics
    }

    /// The body for `key` of `source`: from the response cache when it is there, answered on the
    /// calling task (no child task, no other thread); else made by `make` under the request
    /// deadline, identical concurrent misses sharing one `make`.
    func answer(_ key: String, source: ResolvedSource, make: @escaping @Sendable () async throws -> ByteBuffer) async throws -> ByteBuffer {
        let fullKey = source.key + "|" + key
        if let body = cache.body(for: fullKey) {
            metrics.recordCache(tier: "response", hit: true)
            return body
        }
        return try await withDeadline(deadline) {
            // Looked up again: another request may have stored it meanwhile.
            if let body = self.cache.body(for: fullKey) {
                self.metrics.recordCache(tier: "response", hit: true)
                return body
            }
            self.metrics.recordCache(tier: "response", hit: false)
            return try await self.renders.value(for: fullKey) {
                let body = try await make()
                self.cache.store(body, for: fullKey)
                return body
            }
        }
    }

    /// The strong validator of a response: the source's identity, the colour setting (the same
    /// request answers with other pixels when profiles are kept) and the canonical request, hashed
    /// (a change of any changes it).
    func entityTag(_ source: ResolvedSource, _ key: String) -> String {
        let colour = colorManagement == .keepSourceProfile ? "kept-profile" : "srgb"
        return EntityTag.make((source.key + "|" + colour + "|" + key).utf8)
    }

    /// Requests waiting for a render now (each shared render counted once per request).
    var waitingCount: Int { renders.waitingCallers }

    /// Renders cancelled because their clients went, not ended yet.
    var stoppingCount: Int { renders.stoppingCount }
}
