/// Times on a media timeline (a video's, a trimming slider's), in seconds.
public enum MediaTime {
    /// Frame times are whole ticks turned into seconds; comparisons of times allow this much slack.
    public static let tolerance = 1e-6
}
