import Testing

@testable import TesseraTrimming

@Suite("Trimming model: constraints in seconds")
struct TrimmingModelTests {
    @Test("initial values are clamped into the clip and the selection")
    func initialClamp() {
        let model = TrimmingSliderModel(duration: 10, minimumDuration: 1, lower: -3, upper: 40, playhead: 99)
        #expect(model.lower == 0 && model.upper == 10 && model.playhead == 10)
        let defaults = TrimmingSliderModel(duration: 10, maximumDuration: 4)
        #expect(defaults.lower == 0 && defaults.upper == 4 && defaults.playhead == 0)
    }

    @Test("a handle stops at the other one minus the minimum; it never pushes it")
    func handleStopsAtOther() {
        var model = TrimmingSliderModel(duration: 32, minimumDuration: 2, lower: 4, upper: 28, playhead: 16)
        #expect(model.set(.lower, to: 31) == [.lower, .playhead])
        #expect(model.lower == 26 && model.upper == 28 && model.playhead == 26)
        model.set(.upper, to: -5)
        #expect(model.upper == 28 && model.lower == 26, "upper cannot move below lower + minimum")
        model.set(.lower, to: -5)
        #expect(model.lower == 0 && model.playhead == 26)
    }

    @Test("the playhead stays inside the selection and is carried by a handle passing it")
    func playheadCarried() {
        var model = TrimmingSliderModel(duration: 32, lower: 4, upper: 28, playhead: 10)
        model.set(.playhead, to: 30)
        #expect(model.playhead == 28)
        model.set(.upper, to: 20)
        #expect(model.upper == 20 && model.playhead == 20)
        model.set(.lower, to: 20)
        #expect(model.lower == 20 && model.playhead == 20)
        #expect(model.set(.playhead, to: 20).isEmpty, "an unchanged value reports no change")
    }

    @Test("a maximum length stops either handle from pulling away")
    func maximumDuration() {
        var model = TrimmingSliderModel(duration: 32, maximumDuration: 10, lower: 4, upper: 12)
        model.set(.upper, to: 30)
        #expect(model.upper == 14)
        model.set(.lower, to: 0)
        #expect(model.lower == 4)
        model.setSelection(lower: 20, upper: 31)
        #expect(model.lower == 20 && model.upper == 30)
        #expect(model.limits(for: .lower) == 20...30 && model.limits(for: .upper) == 20...30)
    }

    @Test("a clip shorter than the minimum can only be selected whole")
    func shortClip() {
        var model = TrimmingSliderModel(duration: 1.5, minimumDuration: 2)
        #expect(model.lower == 0 && model.upper == 1.5 && model.effectiveMinimumDuration == 1.5)
        model.set(.lower, to: 1)
        model.set(.upper, to: 0.5)
        #expect(model.lower == 0 && model.upper == 1.5)
    }

    @Test("setSelection places both handles even where one at a time would be blocked")
    func setSelectionBoth() {
        var model = TrimmingSliderModel(duration: 32, minimumDuration: 2, lower: 0, upper: 4, playhead: 2)
        #expect(model.setSelection(lower: 20, upper: 24) == [.lower, .upper, .playhead])
        #expect(model.lower == 20 && model.upper == 24 && model.playhead == 20)
        model.setSelection(lower: 31, upper: 0)
        #expect(model.lower == 30 && model.upper == 32, "lower first against the clip, then upper")
    }

    @Test("snapping lands on the nearest frame time")
    func snapping() {
        var model = TrimmingSliderModel(
            duration: 10, frameTimes: TrimmingSliderModel.frameTimes(duration: 10, framesPerSecond: 4))
        model.set(.playhead, to: 3.1)
        #expect(model.playhead == 3)
        model.set(.upper, to: 7.2)
        #expect(model.upper == 7.25)
        model.set(.upper, to: 9.99)
        #expect(model.upper == 10, "the end of the last frame is a snap time, so the clip's end is reachable")
        var uneven = TrimmingSliderModel(duration: 5, frameTimes: [3.5, 0, 3, 1])
        uneven.set(.playhead, to: 2.1)
        #expect(uneven.playhead == 3)
        #expect(uneven.snapTimes == [0, 1, 3, 3.5, 5])
    }

    @Test("snapping never breaks a constraint: the nearest allowed frame time wins")
    func snappingRespectsConstraints() {
        var model = TrimmingSliderModel(
            duration: 10, minimumDuration: 0.8,
            frameTimes: TrimmingSliderModel.frameTimes(duration: 10, framesPerSecond: 4), lower: 0, upper: 5)
        model.set(.lower, to: 4.2)
        #expect(model.lower == 4, "4.25 is nearer to the limit 4.2 but leaves less than 0.8 s")
        #expect(model.limits(for: .lower) == 0...4)
        #expect(model.limits(for: .upper) == 5...10)
    }

    @Test("frame times at a constant rate are k / fps, below the duration")
    func constantRateFrameTimes() {
        let times = TrimmingSliderModel.frameTimes(duration: 1, framesPerSecond: 30)
        #expect(times.count == 30 && times[29] == 29.0 / 30)
        #expect(TrimmingSliderModel.frameTimes(duration: 0.1, framesPerSecond: 24).count == 3)
    }

    /// Durations and rates come from a file's header: none of these may trap (an `Int` of infinity)
    /// or allocate what it claims (10¹⁸ frames).
    @Test(arguments: [(Double.infinity, 30.0), (.nan, 30), (-5, 30), (10, 0), (10, -24), (10, .nan), (10, .infinity), (1e15, 1000)])
    func hostileDurationsAndRatesGiveNoFrameTimes(_ duration: Double, _ rate: Double) {
        #expect(TrimmingSliderModel.frameTimes(duration: duration, framesPerSecond: rate).isEmpty)
    }
}
