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

    public enum Priority: Int, Sendable, Comparable, CaseIterable {
        case veryLow, low, normal, high, veryHigh
        public static func < (a: Priority, b: Priority) -> Bool { a.rawValue < b.rawValue }

        /// The executor's priority for this request's decode: the two lowest share `low`, the two highest `high`.
        var workPriority: WorkPriority {
            switch self {
            case .veryLow, .low: .low
            case .normal: .normal
            case .high, .veryHigh: .high
            }
        }
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

    public var url: URL
    public var target: Target
    public var contentMode: ContentMode
    /// Applied in order after decoding.
    public var processors: [any ImageProcessing]
    public var priority: Priority
    public var cachePolicy: CachePolicy

    public init(
        url: URL, target: Target = .original, contentMode: ContentMode = .fit,
        processors: [any ImageProcessing] = [], priority: Priority = .normal, cachePolicy: CachePolicy = .useAll
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
