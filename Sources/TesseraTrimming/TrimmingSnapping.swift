import TesseraCore

/// Binary searches over ascending snap times; a long clip at 60 fps has hundreds of thousands of
/// frames and a drag asks on every move.
enum TrimmingSnapping {
    /// The first and last indices of `times` whose values lie in `range`, give or take
    /// `MediaTime.tolerance`; nil if none does. The slack matters: a bound computed as
    /// `29/30 + 0.5` is one rounding step above the frame time `44/30` it means, and without it
    /// that frame could never be chosen.
    static func indices(of times: [Double], within range: ClosedRange<Double>) -> ClosedRange<Int>? {
        let first = firstIndex(in: times) { $0 >= range.lowerBound - MediaTime.tolerance }
        let last = firstIndex(in: times) { $0 > range.upperBound + MediaTime.tolerance } - 1
        return first <= last ? first...last : nil
    }

    /// The time in `times` nearest to `value` among those inside `range` (the earlier on a tie);
    /// `value` clamped into `range` when no time lies inside it, so constraints always win.
    static func nearest(to value: Double, in times: [Double], within range: ClosedRange<Double>) -> Double {
        let clamped = min(max(value, range.lowerBound), range.upperBound)
        guard let inside = indices(of: times, within: range) else { return clamped }
        let above = min(max(firstIndex(in: times) { $0 >= clamped }, inside.lowerBound), inside.upperBound)
        let below = max(above - 1, inside.lowerBound)
        return clamped - times[below] <= times[above] - clamped ? times[below] : times[above]
    }

    /// The time `steps` snap positions away from `value` (positive is later): from a value between
    /// two times the first step lands on the neighbour in that direction. Clamped to the ends.
    static func stepped(from value: Double, by steps: Int, in times: [Double]) -> Double {
        guard !times.isEmpty, steps != 0 else { return value }
        let index: Int
        if steps > 0 {
            index = firstIndex(in: times) { $0 > value } + steps - 1
        } else {
            index = firstIndex(in: times) { $0 >= value } + steps
        }
        return times[min(max(index, 0), times.count - 1)]
    }

    /// The first index whose time satisfies `predicate` (which must be false then true along the
    /// array); `times.count` if none does.
    private static func firstIndex(in times: [Double], where predicate: (Double) -> Bool) -> Int {
        var low = 0
        var high = times.count
        while low < high {
            let middle = (low + high) / 2
            if predicate(times[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
