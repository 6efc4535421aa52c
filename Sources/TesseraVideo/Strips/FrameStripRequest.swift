public import TesseraCore

/// How a strip frame is chosen within its slot.
public enum FrameSamplingMode: String, Sendable, Hashable, CaseIterable, Codable {
    /// The keyframe at or before the slot centre when it lies inside the slot (no decoding past
    /// it); otherwise the first frame at or after the slot start. Cheap: mostly keyframe decodes.
    case fast
    /// The first frame at or after the slot centre: what `ffmpeg -ss centre` shows.
    case exact
    /// The keyframe nearest the slot centre (the earlier one on a tie), wherever it lies: nothing
    /// but keyframes is ever decoded, so the time barely depends on the keyframe interval, but
    /// when keyframes are further apart than slots, neighbouring slots show the same frame.
    case keyframe
}

/// The size of each strip frame, in pixels of the upright picture; the other side follows the
/// video's display aspect ratio (pixel aspect and rotation applied).
public enum FrameSizing: Sendable, Hashable {
    /// Frames this many pixels high.
    case height(Int)
    /// Frames this many pixels wide.
    case width(Int)

    /// The upright frame size for a video whose upright picture is `display` pixels: the picture
    /// scaled so the given side matches, by Core's one rounding rule (`PixelSize.scaled(by:)`,
    /// capped so that absurd requests fail the strip's size check, not arithmetic).
    public func frameSize(display: PixelSize) -> PixelSize {
        switch self {
        case .height(let height):
            let size = display.scaled(by: Double(max(1, height)) / Double(display.height))
            return PixelSize(width: size.width, height: max(1, height))
        case .width(let width):
            let size = display.scaled(by: Double(max(1, width)) / Double(display.width))
            return PixelSize(width: max(1, width), height: size.height)
        }
    }
}

/// What strip to make: how many frames, how big, chosen how.
public struct FrameStripRequest: Sendable, Hashable {
    /// Frames in the strip: one per equal slot of the duration.
    public var frameCount: Int
    /// The size of each frame, by height or width in pixels.
    public var sizing: FrameSizing
    /// How each frame is chosen within its slot.
    public var mode: FrameSamplingMode

    /// A request for `frameCount` frames of `sizing`, chosen by `mode` (keyframes first by default).
    public init(frameCount: Int, sizing: FrameSizing, mode: FrameSamplingMode = .fast) {
        self.frameCount = frameCount
        self.sizing = sizing
        self.mode = mode
    }
}
