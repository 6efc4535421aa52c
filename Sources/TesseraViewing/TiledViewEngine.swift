import FoundationEssentials
public import TesseraCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Decides, for a viewport over a pyramid, which tiles to fetch, in what order, what to draw
/// meanwhile and what to forget; host-agnostic (a web page, a window or an iOS view drives it).
///
/// - Tiles of the selected level that the viewport shows load first, from the centre outwards;
///   one ring beyond the edges follows at low priority.
/// - Loads for tiles that left the view are cancelled when the viewport changes.
/// - A failed tile is retried with exponential backoff (capped), as long as it is wanted: it never
///   leaves a hole for good.
/// - Loaded tiles live in a byte-budgeted LRU cache, so memory follows the viewport, not the image.
/// - Every arrival reports the viewport rectangle (in points) that changed, like `setNeedsDisplay(_:)`.
public actor TiledViewEngine {
    /// What happened, for hosts that redraw and for `tessera render --timeline`.
    public enum Event: Sendable {
        /// A tile's load started, at this priority.
        case requested(TileID, WorkPriority)
        /// A needed tile was already in the cache.
        case servedFromCache(TileID)
        /// A tile arrived and is in the cache.
        case loaded(TileID)
        /// A load was cancelled because the viewport no longer needs the tile.
        case cancelled(TileID)
        /// A load failed for the `attempt`th time (from 1); it is tried again in `retryIn` seconds if still
        /// needed.
        case failed(TileID, attempt: Int, retryIn: Double)
        /// The part of the viewport, in points (x, y, width, height from the top-left), to redraw.
        case invalidated(x: Double, y: Double, width: Double, height: Double)
    }

    /// The pyramid the tiles come from.
    public nonisolated let source: any TiledImageSource
    /// What is shown now; ``update(_:)`` changes it.
    public private(set) var viewport: Viewport
    /// Chooses the level drawn for the viewport's zoom.
    public let selector: LevelSelector
    /// Loads running at once.
    public let maximumConcurrentLoads: Int
    /// Longest wait between retries of a failing tile, in seconds.
    public let maximumBackoff: Double
    /// The loaded tiles, by cost in bytes.
    public nonisolated let cache: MemoryImageCache
    /// What the engine does, as it happens. The stream buffers without limit, so a slow reader misses
    /// nothing; it ends after ``finish()``.
    public nonisolated let events: AsyncStream<Event>
    private let continuation: AsyncStream<Event>.Continuation

    private var loading: [TileID: (task: Task<Void, Never>, priority: WorkPriority)] = [:]
    private var attempts: [TileID: Int] = [:]
    private var retryAt: [TileID: ContinuousClock.Instant] = [:]
    /// Tasks waiting for tiles to settle, each with what it waits for.
    private var waiters: [(condition: WaitCondition, continuation: CheckedContinuation<Void, Never>)] = []

    /// What a waiting task waits for.
    private enum WaitCondition {
        /// Every visible tile (not the ring) settled.
        case visibleTiles
        /// One tile settled.
        case tile(TileID)
    }

    /// - Parameters:
    ///   - source: the pyramid to show.
    ///   - viewport: what is shown first; nothing loads until ``start()`` or ``update(_:)``.
    ///   - selector: chooses the level for the zoom.
    ///   - cacheBudget: bytes of tiles kept; nil is six screens of RGBA, at least 16 MiB.
    ///   - maximumConcurrentLoads: tile loads running at once.
    ///   - maximumBackoff: the longest wait between retries of a failing tile, in seconds.
    public init(
        source: any TiledImageSource, viewport: Viewport, selector: LevelSelector = LevelSelector(),
        cacheBudget: Int? = nil, maximumConcurrentLoads: Int = 6, maximumBackoff: Double = 5
    ) {
        self.source = source
        self.viewport = viewport
        self.selector = selector
        self.maximumConcurrentLoads = maximumConcurrentLoads
        self.maximumBackoff = maximumBackoff
        // A few screens of tiles by default.
        let screen = viewport.bitmapSize.byteCount(in: .rgba8)
        let budget = cacheBudget ?? max(6 * screen, 16 << 20)
        cache = MemoryImageCache(costLimit: budget, countLimit: 100_000, entryCostLimit: budget)
        (events, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .unbounded)
    }

    /// The level (by reduction) the current viewport draws.
    public var reduction: Int {
        selector.reduction(screenPixelsPerImagePixel: viewport.screenPixelsPerImagePixel, levelCount: source.levelCount)
    }

    /// Tiles the viewport needs, in load order: the visible ones centre-out, then the ring beyond.
    public var neededTiles: [(TileID, WorkPriority)] {
        let layout = source.layout
        let visible = layout.tiles(reduction: reduction, covering: viewport.visibleRect)
        let ring = layout.tiles(reduction: reduction, covering: viewport.visibleRect, ring: 1).filter { !visible.contains($0) }
        // The finest single-tile level underlies everything as a placeholder.
        let base = (0..<source.levelCount).first { layout.tileCount(reduction: $0) == 1 } ?? source.levelCount - 1
        let placeholder = base > reduction ? [TileID(reduction: base, column: 0, row: 0)] : []
        // Prefetch only as much of the ring as the cache can hold beside the visible tiles, or the
        // ring would evict itself and be fetched again and again.
        let tileBytes =
            4 * max(1, layout.columnSpans(reduction: reduction).first?.count ?? 1)
            * max(1, layout.rowSpans(reduction: reduction).first?.count ?? 1)
        let room = max(0, cache.costLimit / tileBytes - visible.count - placeholder.count - 1)
        return placeholder.map { ($0, .high) } + visible.map { ($0, .normal) } + ring.prefix(room).map { ($0, .low) }
    }

    /// Moves the view; loads no longer needed are cancelled, new ones started.
    public func update(_ viewport: Viewport) {
        self.viewport = viewport
        for (id, _) in neededTiles where cache.image(for: key(id)) != nil { continuation.yield(.servedFromCache(id)) }
        schedule()
    }

    /// The tile if it is in the cache.
    public nonisolated func cachedTile(_ id: TileID) -> PixelBuffer? { cache.image(for: key(id)) }

    /// Starts loading what the viewport needs.
    public func start() { schedule() }

    /// Waits until every visible tile (not the ring) is in the cache, or has failed
    /// `giveUpAfter` times (the view then keeps its placeholder there).
    public func waitUntilVisibleTilesLoaded(giveUpAfter attemptLimit: Int = .max) async {
        self.attemptLimit = attemptLimit
        await waitUntil(.visibleTiles)
    }

    /// The tile of the coarsest level that fits in one tile: what every view draws first, as the
    /// placeholder under everything else.
    public nonisolated var placeholderTile: TileID {
        let layout = source.layout
        let reduction = (0..<layout.levelCount).first { layout.tileCount(reduction: $0) == 1 } ?? layout.levelCount - 1
        return TileID(reduction: reduction, column: 0, row: 0)
    }

    /// Waits until the ``placeholderTile`` is in the cache, or has failed `giveUpAfter` times: the
    /// first frame a viewer can draw.
    public func waitUntilPlaceholderLoaded(giveUpAfter attemptLimit: Int = .max) async {
        self.attemptLimit = attemptLimit
        await waitUntil(.tile(placeholderTile))
    }

    private var attemptLimit = Int.max

    private func isSettled(_ id: TileID) -> Bool {
        cache.image(for: key(id)) != nil || (attempts[id] ?? 0) >= attemptLimit
    }

    /// Whether a tile is in the cache or has failed as often as a waiter allows.
    private func isMet(_ condition: WaitCondition) -> Bool {
        switch condition {
        case .visibleTiles: neededTiles.filter { $0.1 != .low }.allSatisfy { isSettled($0.0) }
        case .tile(let id): isSettled(id)
        }
    }

    private func waitUntil(_ condition: WaitCondition) async {
        while !isMet(condition) {
            await withCheckedContinuation { waiters.append((condition, $0)) }
        }
    }

    /// The current view, composited from the cache (placeholders included).
    public func render(background: (red: UInt8, green: UInt8, blue: UInt8) = (0, 0, 0)) -> TileRenderer.Result {
        let cache = self.cache
        return TileRenderer(background: background).render(viewport, layout: source.layout, reduction: reduction) {
            cache.image(for: self.key($0))
        }
    }

    /// Cancels every load and ends ``events``. The engine does nothing useful afterwards.
    public func finish() {
        for entry in loading.values { entry.task.cancel() }
        loading.removeAll()
        continuation.finish()
    }

    // MARK: - Scheduling

    private nonisolated func key(_ id: TileID) -> String { "\(id.reduction)/\(id.column)/\(id.row)" }

    private func schedule() {
        let needed = neededTiles
        let wanted = Set(needed.map(\.0))
        for (id, entry) in loading where !wanted.contains(id) {
            entry.task.cancel()
            loading[id] = nil
            continuation.yield(.cancelled(id))
        }
        let now = ContinuousClock.now
        for (id, priority) in needed where loading.count < maximumConcurrentLoads {
            guard loading[id] == nil else { continue }
            if cache.image(for: key(id)) != nil {
                continue
            }
            if let retry = retryAt[id], retry > now { continue }
            continuation.yield(.requested(id, priority))
            let source = self.source
            let task = Task { [weak self] in
                do {
                    let pixels = try await source.tile(reduction: id.reduction, column: id.column, row: id.row)
                    try Task.checkCancellation()
                    await self?.arrived(id, pixels)
                } catch is CancellationError {
                } catch {
                    await self?.failed(id)
                }
            }
            loading[id] = (task, priority)
        }
        resumeWaitersIfDone()
    }

    private func arrived(_ id: TileID, _ pixels: PixelBuffer) {
        guard loading.removeValue(forKey: id) != nil else { return }
        attempts[id] = nil
        retryAt[id] = nil
        cache.store(pixels, for: key(id))
        continuation.yield(.loaded(id))
        if let changed = invalidation(for: id) { continuation.yield(changed) }
        schedule()
    }

    private func failed(_ id: TileID) {
        guard loading.removeValue(forKey: id) != nil else { return }
        let attempt = (attempts[id] ?? 0) + 1
        attempts[id] = attempt
        let delay = min(maximumBackoff, 0.05 * pow(2, Double(attempt - 1)))
        retryAt[id] = ContinuousClock.now + .milliseconds(Int(delay * 1000))
        continuation.yield(.failed(id, attempt: attempt, retryIn: delay))
        Task { [weak self] in
            try? await Task.sleep(for: .milliseconds(Int(delay * 1000)))
            await self?.start()
        }
        schedule()
    }

    private func resumeWaitersIfDone() {
        let ready = waiters.filter { isMet($0.condition) }
        guard !ready.isEmpty else { return }
        waiters.removeAll { isMet($0.condition) }
        ready.forEach { $0.continuation.resume() }
    }

    /// The viewport rectangle (points) a tile covers, clipped to the viewport; nil if off screen.
    private func invalidation(for id: TileID) -> Event? {
        let layout = source.layout
        let factor = Double(1 << id.reduction)
        let columns = layout.cores(layout.columnSpans(reduction: id.reduction))[id.column]
        let rows = layout.cores(layout.rowSpans(reduction: id.reduction))[id.row]
        let rect = viewport.visibleRect
        let zoom = viewport.zoom
        let x0 = max(0, (Double(columns.lowerBound) * factor - rect.minX) * zoom)
        let y0 = max(0, (Double(rows.lowerBound) * factor - rect.minY) * zoom)
        let x1 = min(viewport.size.width, (Double(columns.upperBound) * factor - rect.minX) * zoom)
        let y1 = min(viewport.size.height, (Double(rows.upperBound) * factor - rect.minY) * zoom)
        guard x1 > x0, y1 > y0 else { return nil }
        return .invalidated(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}
