/// Media times as people read them: `m:ss.t` ("0:12.5"), and `h:mm:ss.t` ("1:02:03.0") from one
/// hour on, to a tenth of a second.
public enum TrimmingTimeFormat {
    /// `seconds` (≥ 0; negatives and NaN read as 0) rounded to the nearest tenth, then formatted.
    /// Rounding happens before splitting into fields, so 59.96 s reads "1:00.0", not "0:60.0".
    public static func string(seconds: Double) -> String {
        // The cap (about 31,700 years) keeps the conversion to Int from trapping.
        let tenths = seconds.isFinite && seconds > 0 ? Int((min(seconds, 1e12) * 10).rounded()) : 0
        let hours = tenths / 36_000
        let minutes = tenths / 600 % 60
        let wholeSeconds = tenths / 10 % 60
        let fraction = tenths % 10
        let secondsText = "\(twoDigits(wholeSeconds)).\(fraction)"
        if hours > 0 { return "\(hours):\(twoDigits(minutes)):\(secondsText)" }
        return "\(minutes):\(secondsText)"
    }

    private static func twoDigits(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
