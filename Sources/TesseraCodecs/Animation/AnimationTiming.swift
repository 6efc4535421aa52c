/// When an animation's frames show, and how many times it plays.
public struct AnimationTiming: Sendable, Hashable, Codable {
    /// How long each frame shows, in seconds, as browsers show it: a stored delay of 10 ms or less
    /// (GIF's 0 and 1, which many files use to mean "as fast as possible") lasts 100 ms, as in
    /// Chromium and Firefox (Chromium applies it to every format, and so does Tessera).
    public var frameDurations: [Double]
    /// How many times the animation plays; 0 means forever. A GIF's loop extension stores
    /// repetitions after the first play, and no extension means one play, as browsers read it;
    /// WebP's ANIM and APNG's acTL store plays.
    public var loopCount: Int

    /// Timing from durations in seconds, one per frame, and plays (0: forever); the values are kept as given.
    public init(frameDurations: [Double], loopCount: Int) {
        self.frameDurations = frameDurations
        self.loopCount = loopCount
    }

    /// How long one play lasts, in seconds.
    public var duration: Double { frameDurations.reduce(0, +) }

    /// A stored delay of `milliseconds` as browsers show it, in seconds.
    static func displayedDuration(milliseconds: Int) -> Double {
        milliseconds <= 10 ? 0.1 : Double(milliseconds) / 1000
    }
}
