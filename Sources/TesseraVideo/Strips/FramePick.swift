import TesseraCore

/// Which frame a slot gets under a sampling mode, decided from the keyframe index alone, before
/// any decoding: the one rule both the sampler and the work split follow.
enum FramePick: Equatable {
    /// The keyframe at this time (seconds), decoded on its own.
    case keyframe(Double)
    /// The first frame at or after this time (seconds), decoded forward from the keyframe before it.
    case firstFrame(atOrAfter: Double)
    /// The keyframe nearest this time (seconds), found by decoding keyframes only: keyframe mode
    /// where the container lists some keyframes (Matroska's cues) or none (MPEG-TS).
    case nearestKeyframe(to: Double)

    init(slot: FrameSlot, asset: VideoAsset, mode: FrameSamplingMode) {
        switch mode {
        case .fast:
            if let key = asset.keyframe(atOrBefore: slot.target), key >= slot.start - MediaTime.tolerance {
                self = .keyframe(key)
            } else {
                self = .firstFrame(atOrAfter: slot.start)
            }
        case .exact:
            self = .firstFrame(atOrAfter: slot.target)
        case .keyframe where !asset.keyframeIndexIsComplete:
            self = .nearestKeyframe(to: slot.target)
        case .keyframe:
            let before = asset.keyframe(atOrBefore: slot.target)
            let after = asset.keyframeTimes.first { $0 > slot.target + MediaTime.tolerance }
            switch (before, after) {
            // Equally near within the tolerance is a tie, which the earlier keyframe wins.
            case (let before?, let after?):
                self = .keyframe(after - slot.target < slot.target - before - MediaTime.tolerance ? after : before)
            case (let only?, nil), (nil, let only?): self = .keyframe(only)
            case (nil, nil): self = .nearestKeyframe(to: slot.target)
            }
        }
    }

    /// Seconds of video decoded for each slot, both when a decoder starts at the slot and when it
    /// comes from the slot before, where it goes on instead of seeking back when it can. A keyframe
    /// alone counts as one frame.
    static func decodingCosts(_ slots: [FrameSlot], asset: VideoAsset, mode: FrameSamplingMode) -> DecodingCosts {
        let oneFrame = asset.frameDuration > 0 ? asset.frameDuration : 1.0 / 30
        var costs = DecodingCosts(starting: [], continuing: [])
        var position: Double?
        for slot in slots {
            switch FramePick(slot: slot, asset: asset, mode: mode) {
            case .keyframe, .nearestKeyframe:
                costs.starting.append(oneFrame)
                costs.continuing.append(oneFrame)
                position = nil
            case .firstFrame(let target):
                let key = asset.keyframe(atOrBefore: target) ?? 0
                let from = position.flatMap { $0 < target && key <= $0 ? $0 : nil } ?? key
                costs.starting.append(max(0, target - key) + oneFrame)
                costs.continuing.append(max(0, target - from) + oneFrame)
                position = target
            }
        }
        return costs
    }
}

/// Estimated decoding work per slot, in seconds of video, for splitting a strip between decoders.
struct DecodingCosts {
    /// Cost of each slot when a decoder starts with it.
    var starting: [Double]
    /// Cost of each slot after the one before it on the same decoder.
    var continuing: [Double]

    /// Splits the slots into at most `count` contiguous, non-empty runs so that the costliest run
    /// costs as little as possible: decoders given one run each then finish at about the same time.
    /// Starting a run later never makes it cost more, so filling each run greedily up to a bound
    /// and searching for the least bound that needs no more than `count` runs is optimal.
    func balancedRuns(_ slots: [FrameSlot], count: Int) -> [[FrameSlot]] {
        guard !slots.isEmpty else { return [] }
        let count = max(1, count)
        var low = starting.max()!
        var high = cuts(bound: .infinity).cost
        for _ in 0..<48 where high - low > 1e-6 * high {
            let middle = (low + high) / 2
            if cuts(bound: middle).starts.count <= count { high = middle } else { low = middle }
        }
        let starts = cuts(bound: high).starts + [slots.count]
        return zip(starts, starts.dropFirst()).map { Array(slots[$0..<$1]) }
    }

    /// Where runs start when each takes slots until the next would push it over `bound`, and the
    /// cost of the costliest run.
    private func cuts(bound: Double) -> (starts: [Int], cost: Double) {
        var starts = [0]
        var run = starting[0]
        var costliest = run
        for index in starting.indices.dropFirst() {
            if run + continuing[index] <= bound {
                run += continuing[index]
            } else {
                starts.append(index)
                run = starting[index]
            }
            costliest = max(costliest, run)
        }
        return (starts, costliest)
    }
}
