/// The values of a video trimming slider, in seconds, with the rules that keep them consistent.
///
/// These always hold after any call:
/// `0 ≤ lower ≤ playhead ≤ upper ≤ duration`,
/// `upper − lower ≥ effectiveMinimumDuration` and, when set, `upper − lower ≤ maximumDuration`.
///
/// Moving a handle never pushes the other handle: it stops where a constraint says. The playhead
/// is the only value that gets carried along, because it must stay inside the selection.
///
/// Every constraint is in seconds, so a two-second minimum is two seconds whatever the control's
/// width. The model knows nothing of geometry or events; ``TrimmingSlider`` adds those.
public struct TrimmingSliderModel: Sendable, Equatable {
    /// Length of the clip, in seconds.
    public let duration: Double
    /// The shortest selection asked for, in seconds. See ``effectiveMinimumDuration``.
    public let minimumDuration: Double
    /// The longest selection allowed, in seconds; nil for no limit.
    public let maximumDuration: Double?
    /// Start of the selection, in seconds.
    public private(set) var lower: Double
    /// End of the selection, in seconds.
    public private(set) var upper: Double
    /// Playback position, in seconds.
    public private(set) var playhead: Double
    /// The times values snap to, in seconds, ascending: the frame start times given to the
    /// initializer plus `duration` (the end of the last frame), so the upper handle can reach the
    /// end of the clip. Nil when the model does not snap.
    public let snapTimes: [Double]?

    /// Creates a model; out-of-range values are clamped (and snapped) rather than rejected, in the
    /// order lower, upper, playhead.
    ///
    /// - Parameters:
    ///   - duration: Clip length in seconds, ≥ 0.
    ///   - minimumDuration: Shortest selection in seconds, ≥ 0. A clip shorter than this can only
    ///     be selected whole.
    ///   - maximumDuration: Longest selection in seconds, ≥ `minimumDuration`, or nil.
    ///   - frameTimes: Frame start times in seconds; when given, every value snaps to the nearest of
    ///     them (or to `duration`) that the constraints allow. Need not be sorted.
    ///   - lower: Initial selection start in seconds; default 0.
    ///   - upper: Initial selection end in seconds; default as far as `maximumDuration` allows.
    ///   - playhead: Initial playback position in seconds; default the selection start.
    public init(
        duration: Double,
        minimumDuration: Double = 0,
        maximumDuration: Double? = nil,
        frameTimes: [Double]? = nil,
        lower: Double = 0,
        upper: Double? = nil,
        playhead: Double? = nil
    ) {
        precondition(duration >= 0 && duration.isFinite, "duration must be finite and not negative")
        precondition(minimumDuration >= 0, "minimumDuration must not be negative")
        if let maximumDuration {
            precondition(maximumDuration >= minimumDuration, "maximumDuration must be at least minimumDuration")
        }
        self.duration = duration
        self.minimumDuration = minimumDuration
        self.maximumDuration = maximumDuration
        snapTimes = frameTimes.map { times in
            var points = Array(Set(times.filter { $0 >= 0 && $0 < duration })).sorted()
            points.append(duration)
            return points
        }
        self.lower = 0
        self.upper = duration
        self.playhead = 0
        setSelection(lower: lower, upper: upper ?? .infinity)
        set(.playhead, to: playhead ?? self.lower)
    }

    /// The minimum the selection really keeps, in seconds: `minimumDuration`, or the whole clip
    /// when the clip is shorter.
    public var effectiveMinimumDuration: Double { min(minimumDuration, duration) }

    /// The value of `thumb`, in seconds.
    public func value(of thumb: TrimmingThumb) -> Double {
        switch thumb {
        case .lower: lower
        case .upper: upper
        case .playhead: playhead
        }
    }

    /// The values `thumb` may take with the other values where they are, in seconds: the lower
    /// handle's maximum is `upper − effectiveMinimumDuration`, the upper handle's minimum is
    /// `lower + effectiveMinimumDuration`, and so on. When snapping, the bounds are the outermost
    /// snap times inside the constraints (the clamped bounds if none fits), so both are reachable.
    public func limits(for thumb: TrimmingThumb) -> ClosedRange<Double> {
        let raw = constraintRange(for: thumb)
        guard let snapTimes, let inside = TrimmingSnapping.indices(of: snapTimes, within: raw) else { return raw }
        return snapTimes[inside.lowerBound]...snapTimes[inside.upperBound]
    }

    /// Moves `thumb` as close to `seconds` as the constraints allow (snapping when the model
    /// snaps). Moving a handle past the playhead carries the playhead with it.
    ///
    /// - Returns: The thumbs whose value changed, `thumb` first.
    @discardableResult
    public mutating func set(_ thumb: TrimmingThumb, to seconds: Double) -> [TrimmingThumb] {
        let before = self
        let target = resolved(seconds, within: constraintRange(for: thumb))
        switch thumb {
        case .lower: lower = target
        case .upper: upper = target
        case .playhead: playhead = target
        }
        playhead = min(max(playhead, lower), upper)
        return changes(since: before, first: thumb)
    }

    /// Sets both handles at once, in seconds. Setting them one by one could be blocked by the
    /// other handle's old position; here `lower` is placed first against the clip alone and
    /// `upper` then against the new `lower`.
    ///
    /// - Returns: The thumbs whose value changed.
    @discardableResult
    public mutating func setSelection(lower newLower: Double, upper newUpper: Double) -> [TrimmingThumb] {
        let before = self
        lower = resolved(newLower, within: 0...max(0, duration - effectiveMinimumDuration))
        upper = resolved(newUpper, within: upperRange(lower: lower))
        playhead = min(max(playhead, lower), upper)
        return changes(since: before, first: .lower)
    }

    private func constraintRange(for thumb: TrimmingThumb) -> ClosedRange<Double> {
        switch thumb {
        case .lower:
            let highest = max(0, upper - effectiveMinimumDuration)
            let lowest = maximumDuration.map { min(max(0, upper - $0), highest) } ?? 0
            return lowest...highest
        case .upper:
            return upperRange(lower: lower)
        case .playhead:
            return lower...upper
        }
    }

    private func upperRange(lower: Double) -> ClosedRange<Double> {
        let lowest = min(duration, lower + effectiveMinimumDuration)
        let highest = maximumDuration.map { max(lowest, min(duration, lower + $0)) } ?? duration
        return lowest...highest
    }

    private func resolved(_ seconds: Double, within range: ClosedRange<Double>) -> Double {
        let value = seconds.isNaN ? range.lowerBound : seconds
        guard let snapTimes else { return min(max(value, range.lowerBound), range.upperBound) }
        return TrimmingSnapping.nearest(to: value, in: snapTimes, within: range)
    }

    private func changes(since before: TrimmingSliderModel, first: TrimmingThumb) -> [TrimmingThumb] {
        let order = [first] + TrimmingThumb.allCases.filter { $0 != first }
        return order.filter { value(of: $0) != before.value(of: $0) }
    }
}

extension TrimmingSliderModel {
    /// Start times, in seconds, of the frames of a constant-frame-rate clip: `0, 1/fps, 2/fps, …`
    /// below `duration`. Computed as `k / fps` rather than by adding, so error does not accumulate.
    ///
    /// Empty (nothing to snap to) when the duration or the rate is not a positive finite number or
    /// the clip would have more than ``maximumFrameTimeCount`` frames: both come from a file's
    /// header, which may claim anything.
    public static func frameTimes(duration: Double, framesPerSecond: Double) -> [Double] {
        guard duration.isFinite, duration > 0, framesPerSecond.isFinite, framesPerSecond > 0 else { return [] }
        let frames = (duration * framesPerSecond).rounded(.up)
        guard frames <= Double(maximumFrameTimeCount) else { return [] }
        return (0..<Int(frames)).map { Double($0) / framesPerSecond }.filter { $0 < duration }
    }

    /// The most frame times ``frameTimes(duration:framesPerSecond:)`` lists: 2²² (32 MiB of
    /// times; 48 hours at 24 fps).
    public static let maximumFrameTimeCount = 1 << 22
}
