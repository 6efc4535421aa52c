/// One of the N equal parts of a video's duration that a strip gives one frame each.
///
/// Slot `k` of `n` covers `[k·D/n, (k+1)·D/n)` seconds and aims at its centre, so the first and last
/// frames are as representative as the middle ones: nothing rounds to whole seconds, a clip
/// shorter than a second is cut as finely as any other, and the last slot reaches the end.
public struct FrameSlot: Sendable, Hashable {
    /// The slot's position, from 0.
    public let index: Int
    /// Seconds.
    public let start: Double
    /// Seconds; exclusive.
    public let end: Double

    /// The slot centre, in seconds: the time a strip frame stands for.
    public var target: Double { (start + end) / 2 }

    /// The `count` slots of a `duration`-second video, in order. Empty when either is not positive.
    public static func slots(duration: Double, count: Int) -> [FrameSlot] {
        guard duration > 0, duration.isFinite, count > 0 else { return [] }
        return (0..<count).map { k in
            FrameSlot(index: k, start: duration * Double(k) / Double(count), end: duration * Double(k + 1) / Double(count))
        }
    }
}
