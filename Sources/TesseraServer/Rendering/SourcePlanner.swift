import TesseraCodecs
import TesseraCore
import TesseraIIIF
import TesseraTiles

/// Decides how each source is served (``SourcePlan``), once per identity: the configured kinds
/// first, then the standard ones (``RegionSourceKinds/standard(readers:)``: slides, pyramidal TIFF), then whatever the codecs decode (``DecodedRegionSource``); a small
/// source the codecs read is always resampled. Plans are kept (4,096 of them) with the header
/// they were made from, so no request reads a header a plan has read.
final class SourcePlanner: Sendable {
    private let configuration: ServerConfiguration
    /// The kinds asked before the codecs, in order.
    let kinds: [any RegionSourceKind]
    private let executor: WorkExecutor
    private let metrics: ServerMetrics
    private let plans = Locked(LRUCache<String, SourcePlan>(costLimit: 4096))

    init(configuration: ServerConfiguration, executor: WorkExecutor, metrics: ServerMetrics) {
        self.configuration = configuration
        self.executor = executor
        self.metrics = metrics
        kinds = configuration.regionSourceKinds + RegionSourceKinds.standard(readers: TIFFReaderPool(readersPerFile: configuration.workerCount))
    }

    /// The source's header.
    func properties(of source: ResolvedSource) async throws -> ImageProperties { try await plan(for: source).properties }

    /// How `source` is served, decoded with `options` (its page, the colour setting), checked
    /// against what reading it costs: a source that never holds its whole image
    /// (``RegionSource/holdsWholeImage``: levels are made whole only up to
    /// ``ServerConfiguration/wholeLevelPixelLimit``, regions are held to the IIIF limits) is limited
    /// only by its rows (``ServerConfiguration/streamedRowPixelLimit``); any other is decoded whole
    /// somewhere and held to the source pixel limit.
    func plan(for source: ResolvedSource) async throws -> SourcePlan {
        if let known = knownPlan(for: source) { return known }
        let plan = try await executor.run(priority: .high) { _ in try self.open(source) }
        let size = plan.properties.size
        if !plan.source.holdsWholeImage {
            guard size.width <= configuration.streamedRowPixelLimit else {
                throw ServerError(.tooLarge, "too wide: rows of \(size.width) pixels, over the limit of \(configuration.streamedRowPixelLimit)")
            }
        } else if size.area > configuration.sourcePixelLimit {
            throw ImageDecodingError.tooLarge(pixels: size.area, limit: configuration.sourcePixelLimit)
        }
        plans.withLock { _ = $0.insert(plan, for: source.key, cost: 1) }
        return plan
    }

    /// The plan for `source` when it is made already; nil, with nothing read, when it is not
    /// (synchronous, for the event loop's fast path).
    func knownPlan(for source: ResolvedSource) -> SourcePlan? { plans.withLock { $0.value(for: source.key) } }

    /// How every page of every source is decoded: the pixel limit, and whether colour is
    /// converted or kept.
    var decodeOptions: DecodeOptions {
        DecodeOptions(maximumPixelCount: configuration.sourcePixelLimit, colorManagement: configuration.colorManagement)
    }

    /// How `source` is decoded: ``decodeOptions``, of its page.
    func decodeOptions(for source: ResolvedSource) -> DecodeOptions {
        var options = decodeOptions
        options.pageIndex = source.pageIndex
        return options
    }

    /// The plan for `source`, its header read here. Blocking: run on the executor.
    private func open(_ source: ResolvedSource) throws -> SourcePlan {
        let options = decodeOptions(for: source)
        var probeOptions = DecodeOptions(maximumPixelCount: configuration.sourcePixelLimit, pageIndex: source.pageIndex)
        probeOptions.pdfMinimumDPI = options.pdfMinimumDPI
        probeOptions.pdfMaximumDPI = options.pdfMaximumDPI
        var probed: Result<ImageProperties, any Error>?
        func header() throws -> ImageProperties {
            if let probed { return try probed.get() }
            metrics.record(.headerRead)
            let result = Result { try ImageDecoder(options: probeOptions).probe(source.input) }
            probed = result
            return try result.get()
        }
        let tileSide = configuration.tileSize
        // A kind reads its sources its own way whatever their size (a small slide has levels, and
        // tiles the codecs' probe refuses); only what the codecs decode is resampled when small.
        let input = RegionSourceInput(input: source.input, identity: source.identity, options: options)
        if let name = source.associatedImage {
            // Served only when asked for (refused before the file is read), and then as the slide
            // is (its access rules are the slide's).
            guard configuration.servesAssociatedImages,
                let associated = try RegionSourceKinds.open(input, kinds: kinds, header: header)?.source.associatedImage(named: name)
            else { throw ServerError(.notFound, "no image \(source.encodedIdentifier)") }
            // Never "small": a small source is decoded from its file by the codecs, which know no label.
            return SourcePlan(RegionLevels(associated), isSmall: false, tileSide: tileSide)
        }
        if let opened = try RegionSourceKinds.open(input, kinds: kinds, header: header) {
            return SourcePlan(RegionLevels(opened.source), isSmall: false, tileSide: tileSide)
        }
        if let properties = try? header(), configuration.isSmall(properties.size) {
            return SourcePlan(
                RegionLevels(DecodedRegionSource(source.input, properties: properties, options: options)), isSmall: true, tileSide: tileSide)
        }
        let decoded = DecodedRegionSource(source.input, properties: try header(), options: options)
        return SourcePlan(RegionLevels(decoded), isSmall: false, tileSide: tileSide)
    }
}
