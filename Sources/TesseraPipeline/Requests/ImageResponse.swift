public import TesseraCore

/// A loaded image and where it came from.
public struct ImageResponse: Sendable {
    /// Where a response came from.
    public enum Source: String, Sendable {
        /// The memory cache (decoded), the disk cache (bytes, decoded now), or a download.
        case memory, disk, network
    }

    /// Timings of one request, in seconds.
    public struct Metrics: Sendable {
        /// From the call to the result.
        public var totalDuration: Double
        /// Spent decoding and processing (0 for a memory hit or when another caller's decode was shared).
        public var decodeDuration: Double
        /// True when this caller shared another caller's download or decode.
        public var wasCoalesced: Bool
    }

    /// The image, at the request's size, processed.
    public var pixels: PixelBuffer
    /// Where it came from.
    public var source: Source
    /// How long it took.
    public var metrics: Metrics
}
