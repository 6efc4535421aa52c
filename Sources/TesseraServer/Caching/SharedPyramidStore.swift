import FoundationEssentials
import TesseraCore
import TesseraIIIF
import TesseraStorage
import TesseraTiles

/// The derivative cache every server shares (`tessera serve --cache s3://…`): pyramids in an object
/// store, cut and named as in a directory of one's own (``PyramidRecipe``), under the source's
/// identity, which every server computes the same.
///
/// - **Built once among all servers.** A builder holds the lease `{identity}/{pyramid}`
///   (``ObjectLeases``) for the whole build, renewing it; the others look for the finished pyramid
///   every ``pollInterval``, and take the lease over if its holder stops renewing it (a crashed
///   server), building the pyramid themselves.
/// - **Never seen half-written.** Each build uploads under a prefix of its own,
///   `{identity}/{build}/`, tiles first and descriptors last; then it writes the pointer
///   `{identity}/{pyramid}.pyramid` naming that build. Readers follow the pointer only, so what
///   they see is complete. Two builds never write the same key: a builder that stalled past its
///   lease and still finishes only repoints to a pyramid as complete as the other's, and the one
///   that loses the lease and is cancelled removes only its own uploads.
/// - **Remembered.** A pointer, once read, names a complete pyramid of one version of its source
///   for good, so each server keeps it in memory and asks the store only for tiles after that.
/// - Nothing is evicted here: the store's lifecycle rules do that, for every server at once.
final class SharedPyramidStore: PyramidStoring {
    let store: any ObjectStoring
    let leases: ObjectLeases
    /// How often a server waiting for another's build looks for it.
    let pollInterval: Duration
    /// Where this configuration's pyramids live in the store: "" or `kept-profiles/`.
    private let prefix: String
    private let recipe: PyramidRecipe
    private let executor: WorkExecutor
    private let metrics: ServerMetrics
    private let uploadConcurrency: Int
    /// The build each complete pyramid's pointer names, by `{identity}/{pyramid}`.
    private let pointers = Locked(LRUCache<String, String>(costLimit: 100_000))
    private let builds = SingleFlight<String>()

    init(
        store: any ObjectStoring, prefix: String, recipe: PyramidRecipe, leaseDuration: Duration, pollInterval: Duration,
        uploadConcurrency: Int = 8, executor: WorkExecutor, metrics: ServerMetrics
    ) {
        self.store = store
        self.prefix = prefix
        self.recipe = recipe
        self.pollInterval = pollInterval
        self.uploadConcurrency = uploadConcurrency
        self.executor = executor
        self.metrics = metrics
        leases = ObjectLeases(store: store, duration: leaseDuration)
    }

    func builtPyramid(_ kind: PyramidKind, for source: ResolvedSource, imageSize: PixelSize) -> BuiltPyramid? {
        let name = self.name(kind, source)
        guard let build = pointers.withLock({ $0.value(for: name) }) else { return nil }
        metrics.recordCache(tier: "pyramid", hit: true)
        return recipe.pyramid(kind, at: .objects(store, prefix: prefix + source.key + "/" + build), imageSize: imageSize, executor: executor)
    }

    func pyramid(_ kind: PyramidKind, for source: ResolvedSource, imageSize: PixelSize) async throws -> BuiltPyramid {
        if let built = builtPyramid(kind, for: source, imageSize: imageSize) { return built }
        let name = self.name(kind, source)
        let build: String
        if let finished = try await pointer(name) {
            metrics.recordCache(tier: "pyramid", hit: true)
            build = finished
        } else {
            metrics.recordCache(tier: "pyramid", hit: false)
            build = try await builds.value(for: name) { try await self.obtain(kind, source: source) }
        }
        pointers.withLock { _ = $0.insert(build, for: name, cost: 1) }
        return recipe.pyramid(kind, at: .objects(store, prefix: prefix + source.key + "/" + build), imageSize: imageSize, executor: executor)
    }

    /// `{prefix}{identity}/{pyramid}`: the lease's name, and the pointer's key less `.pyramid`.
    private func name(_ kind: PyramidKind, _ source: ResolvedSource) -> String {
        prefix + source.key + "/" + recipe.name(kind)
    }

    /// The build the pointer names; nil when there is none yet.
    private func pointer(_ name: String) async throws -> String? {
        do {
            let build = String(decoding: try await store.get(name + ".pyramid"), as: UTF8.self)
            guard !build.isEmpty, !build.contains("/"), build.utf8.count <= 64 else {
                throw ServerError(.corrupt, "a shared pyramid's pointer is malformed")
            }
            return build
        } catch ObjectStorageError.notFound {
            return nil
        }
    }

    /// Waits for the pyramid another server is building, or builds it under the lease: the build's name.
    private func obtain(_ kind: PyramidKind, source: ResolvedSource) async throws -> String {
        let name = self.name(kind, source)
        // The caller has just found no pointer: the lease comes first, the pointer after each wait.
        while true {
            switch try await leases.acquire(name) {
            case .acquired(let lease):
                return try await leases.holding(lease) {
                    // Another may have finished between the look and the lease.
                    if let build = try await self.pointer(name) { return build }
                    return try await self.build(kind, source: source)
                }
            case .held:
                try await Task.sleep(for: pollInterval)
                if let build = try await pointer(name) { return build }
            }
        }
    }

    private func build(_ kind: PyramidKind, source: ResolvedSource) async throws -> String {
        let build = String(UUID().uuidString.lowercased().filter { $0 != "-" }.prefix(12))
        let start = ContinuousClock.now
        _ = try await PyramidBuilder.build(
            source.input, name: recipe.name(kind), store: store, prefix: prefix + source.key + "/" + build,
            // Builds run behind the requests (they are made in the background while the source
            // answers): a request queued for a worker goes first.
            options: recipe.options(kind, pageIndex: source.pageIndex), uploadConcurrency: uploadConcurrency, priority: .low, executor: executor)
        try await store.put(name(kind, source) + ".pyramid", Data(build.utf8), contentType: "text/plain")
        metrics.recordPyramidBuild(duration: ContinuousClock.now - start)
        return build
    }
}
