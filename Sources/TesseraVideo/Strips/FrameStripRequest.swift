import TesseraCore

/// How a strip frame is chosen within its slot.
public enum FrameSamplingMode: String, Sendable, Hashable, CaseIterable, Codable {
    /// The keyframe at or before the slot centre when it lies inside the slot (no decoding past
    /// it); otherwise the first frame at or after the slot start. Cheap: mostly keyframe decodes.
    case fast
    /// The first frame at or after the slot centre: what `ffmpeg -ss centre` shows.
    case exact
}

/// The size of each strip frame, in pixels of the upright picture; the other side follows the
/// video's display aspect ratio (pixel aspect and rotation applied).
public enum FrameSizing: Sendable, Hashable {
    case height(Int)
    case width(Int)

    /// The upright frame size for a video whose upright picture is `display` pixels.
    public func frameSize(display: PixelSize) -> PixelSize {
        let aspect = Double(display.width) / Double(display.height)
        switch self {
        case .height(let height): return PixelSize(width: max(1, Int((Double(height) * aspect).rounded())), height: max(1, height))
        case .width(let width): return PixelSize(width: max(1, width), height: max(1, Int((Double(width) / aspect).rounded())))
        }
    }
}

/// What strip to make: how many frames, how big, chosen how.
public struct FrameStripRequest: Sendable, Hashable {
    public var frameCount: Int
    public var sizing: FrameSizing
    public var mode: FrameSamplingMode

    public init(frameCount: Int, sizing: FrameSizing, mode: FrameSamplingMode = .fast) {
        self.frameCount = frameCount
        self.sizing = sizing
        self.mode = mode
    }
}
