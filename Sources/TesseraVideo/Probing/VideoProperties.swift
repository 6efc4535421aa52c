import TesseraCore

/// What `tessera info` tells of a video: the container's facts, as a `Codable` value with the keys
/// `format` (always `"video"`), `codec`, `width`, `height`, `clockwiseRotation`, `displayWidth`,
/// `displayHeight`, `duration`, `frameRate`, `frameCount` (null when the container does not state
/// it), `keyframeCount`, `hasAudio` and `frameBytes`.
public struct VideoProperties: Sendable, Hashable, Codable {
    /// The video codec's short name ("h264", "hevc", "vp9", ...).
    public var codec: String
    /// Stored frame size, in pixels.
    public var width: Int
    /// Stored frame height, in pixels.
    public var height: Int
    /// Degrees clockwise that show the video upright: 0, 90, 180 or 270.
    public var clockwiseRotation: Int
    /// Upright display size, in pixels.
    public var displayWidth: Int
    /// Upright display height, in pixels.
    public var displayHeight: Int
    /// Seconds.
    public var duration: Double
    /// Frames per second.
    public var frameRate: Double
    /// Number of video frames, as the container states it; nil (`null`) when it does not.
    public var frameCount: Int?
    /// Keyframes the container's index lists.
    public var keyframeCount: Int
    /// Whether the container has an audio stream.
    public var hasAudio: Bool
    /// Bytes of one decoded RGBA frame at the display size.
    public var frameBytes: Int

    private enum CodingKeys: String, CodingKey {
        case format, codec, width, height, clockwiseRotation, displayWidth, displayHeight, duration, frameRate
        case frameCount, keyframeCount, hasAudio, frameBytes
    }

    /// The properties of a probed asset; `frameBytes` is one RGBA frame at its ``VideoAsset/displaySize``.
    public init(_ asset: VideoAsset) {
        codec = asset.codec
        width = asset.storedSize.width
        height = asset.storedSize.height
        clockwiseRotation = asset.clockwiseQuarterTurns * 90
        displayWidth = asset.displaySize.width
        displayHeight = asset.displaySize.height
        duration = asset.duration
        frameRate = asset.frameRate
        frameCount = asset.frameCount
        keyframeCount = asset.keyframeTimes.count
        hasAudio = asset.hasAudio
        frameBytes = asset.displaySize.byteCount(in: .rgba8)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard try container.decode(String.self, forKey: .format) == "video" else {
            throw DecodingError.dataCorruptedError(forKey: .format, in: container, debugDescription: "not a video's properties")
        }
        codec = try container.decode(String.self, forKey: .codec)
        width = try container.decode(Int.self, forKey: .width)
        height = try container.decode(Int.self, forKey: .height)
        clockwiseRotation = try container.decode(Int.self, forKey: .clockwiseRotation)
        displayWidth = try container.decode(Int.self, forKey: .displayWidth)
        displayHeight = try container.decode(Int.self, forKey: .displayHeight)
        duration = try container.decode(Double.self, forKey: .duration)
        frameRate = try container.decode(Double.self, forKey: .frameRate)
        frameCount = try container.decodeIfPresent(Int.self, forKey: .frameCount)
        keyframeCount = try container.decode(Int.self, forKey: .keyframeCount)
        hasAudio = try container.decode(Bool.self, forKey: .hasAudio)
        frameBytes = try container.decode(Int.self, forKey: .frameBytes)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("video", forKey: .format)
        try container.encode(codec, forKey: .codec)
        try container.encode(width, forKey: .width)
        try container.encode(height, forKey: .height)
        try container.encode(clockwiseRotation, forKey: .clockwiseRotation)
        try container.encode(displayWidth, forKey: .displayWidth)
        try container.encode(displayHeight, forKey: .displayHeight)
        try container.encode(duration, forKey: .duration)
        try container.encode(frameRate, forKey: .frameRate)
        try container.encode(frameCount, forKey: .frameCount)
        try container.encode(keyframeCount, forKey: .keyframeCount)
        try container.encode(hasAudio, forKey: .hasAudio)
        try container.encode(frameBytes, forKey: .frameBytes)
    }
}
