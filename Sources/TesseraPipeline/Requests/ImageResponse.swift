public import TesseraCore

/// A loaded image and where it came from.
public struct ImageResponse: Sendable {
    public enum Source: String, Sendable {
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

    public var pixels: PixelBuffer
    public var source: Source
    public var metrics: Metrics
}
