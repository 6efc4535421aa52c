public import FoundationEssentials
public import TesseraCore

/// What to load and at what size.
public struct ImageRequest: Sendable {
    /// The size the image is wanted at.
    public enum Target: Sendable, Hashable {
        /// Full size.
        case original
        /// The longest side at most this many pixels.
        case maxPixelSize(Int)
        /// A view of this many points on a screen of this scale.
        case size(PointSize, scale: DisplayScale)
    }

    /// Which caches a request reads and fills.
    public enum CachePolicy: Sendable, Hashable {
        /// Memory, then disk, then network; results stored in both caches.
        case useAll
        /// Straight to the network; the fresh data and image replace what the caches held.
        case reloadIgnoringCaches
        /// Memory, then network: the disk cache is neither read nor written.
        case memoryOnly
        /// Disk, then network, storing the original bytes on disk, but the decoded, processed
        /// image is not kept in the memory cache (for one-off variants).
        case skipProcessedVariants
    }

    /// Where the bytes are: an `http`, `https` or `file` URL.
    public var url: URL
    /// The size the image is wanted at.
    public var target: Target
    /// How the image fills a ``Target/size(_:scale:)`` box: fit, fill or centre crop. Other targets
    /// ignore it.
    public var contentMode: ContentMode
    /// Applied in order after decoding.
    public var processors: [any ImageProcessing]
    /// How soon the request runs: its download and its decode, queued with every other request's
    /// and (the decode) with every other job on the executor; shared work runs at the highest
    /// priority among its callers.
    public var priority: WorkPriority
    /// Which caches it reads and fills.
    public var cachePolicy: CachePolicy

    /// A request for `url`, at full size and normal priority through every cache unless told otherwise.
    public init(
        url: URL, target: Target = .original, contentMode: ContentMode = .fit,
        processors: [any ImageProcessing] = [], priority: WorkPriority = .normal, cachePolicy: CachePolicy = .useAll
    ) {
        self.url = url
        self.target = target
        self.contentMode = contentMode
        self.processors = processors
        self.priority = priority
        self.cachePolicy = cachePolicy
    }

    /// Identifies the downloaded bytes: one download serves every size and variant.
    public var dataKey: String { url.absoluteString }

    /// Identifies the decoded, processed image: URL, pixel size, content mode and processors, so
    /// an original and its variants never collide.
    public var imageKey: String {
        var key = dataKey + "|" + targetDescription + "|" + contentMode.rawValue
        for processor in processors { key += "|" + processor.identifier }
        return key
    }

    private var targetDescription: String {
        switch target {
        case .original:
            return "original"
        case .maxPixelSize(let pixels):
            return "max\(pixels)"
        case .size(let points, let scale):
            let pixels = points.pixels(at: scale)
            return "\(pixels.width)x\(pixels.height)"
        }
    }
}
