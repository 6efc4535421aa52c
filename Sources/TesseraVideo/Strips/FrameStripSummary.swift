/// A strip's facts without its pixels, as `tessera strip --json` prints them (before `ms`):
/// `duration` and, per frame, `index, target, time, x, y, width, height, filledFrom`.
public struct FrameStripSummary: Sendable, Hashable, Codable {
    /// One strip frame: its slot, the times asked for and shown, and where it sits in the output.
    public struct Frame: Sendable, Hashable, Codable {
        /// The slot's index.
        public var index: Int
        /// The slot centre the frame stands for, in seconds.
        public var target: Double
        /// The decoded frame's presentation time, in seconds.
        public var time: Double
        /// Place in the sheet, in pixels (0, 0 and the frame size for separate frame files).
        public var x: Int
        /// Top edge in the sheet, in pixels.
        public var y: Int
        /// The frame's width, in pixels.
        public var width: Int
        /// The frame's height, in pixels.
        public var height: Int
        /// The slot whose picture this one borrowed because its own frame failed.
        public var filledFrom: Int?

        private enum CodingKeys: String, CodingKey { case index, target, time, x, y, width, height, filledFrom }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(index, forKey: .index)
            try container.encode(target, forKey: .target)
            try container.encode(time, forKey: .time)
            try container.encode(x, forKey: .x)
            try container.encode(y, forKey: .y)
            try container.encode(width, forKey: .width)
            try container.encode(height, forKey: .height)
            // Present as null, not left out: the key set is the same for every frame.
            try container.encode(filledFrom, forKey: .filledFrom)
        }
    }

    /// The video's duration, in seconds.
    public var duration: Double
    /// One entry per frame, in slot order.
    public var frames: [Frame]

    /// The summary of `strip` laid out at `placements` (one per frame, in slot order).
    public init(_ strip: FrameStrip, placements: [FrameSheet.Placement]) {
        duration = strip.asset.duration
        frames = zip(strip.frames, placements).map { frame, placement in
            Frame(
                index: frame.slot.index, target: frame.slot.target, time: frame.time, x: placement.x, y: placement.y,
                width: placement.width, height: placement.height, filledFrom: frame.filledFrom)
        }
    }
}
