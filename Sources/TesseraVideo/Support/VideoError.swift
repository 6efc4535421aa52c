import FoundationEssentials
public import TesseraCore

/// Why a video could not be probed, sampled or trimmed. Every libav failure ends up as one of
/// these; none of them crashes the process or prints on its own.
public enum VideoError: TesseraError, Equatable {
    /// The file could not be opened or read at all (missing, permission, a directory).
    case unreadable(reason: String)
    /// The bytes are not a container format ffmpeg's libraries recognise.
    case notAVideo
    /// A recognised container that ends before its own structure does.
    case truncated(reason: String)
    /// A recognised container that breaks its own rules.
    case corrupt(reason: String)
    /// The file holds media but no video stream (an audio-only file, for one).
    case noVideoStream
    /// A video stream with no frames, or a duration of zero.
    case empty
    /// A codec this build of ffmpeg's libraries cannot decode or encode.
    case unsupportedCodec(String)
    /// A requested time range that does not lie within the video. Times in seconds.
    case rangeOutsideDuration(start: Double, end: Double, duration: Double)
    /// A strip whose decoded frames would need more bytes than the generator allows.
    case stripTooLarge(bytes: Int, limit: Int)
    /// Decoding failed for every frame that was asked for.
    case decodeFailed(reason: String)
    /// Writing the output failed.
    case exportFailed(reason: String)
    /// ffmpeg's shared libraries are not installed, or lack a function Tessera needs.
    case librariesUnavailable(reason: String)
    /// There is no file at the path.
    case notFound
    /// The task the work ran for was cancelled; nothing was written.
    case cancelled

    public var description: String {
        switch self {
        case .unreadable(let reason): "cannot read: \(reason)"
        case .notAVideo: "not a video file"
        case .truncated(let reason): "truncated video: \(reason)"
        case .corrupt(let reason): "corrupt video: \(reason)"
        case .noVideoStream: "no video stream (audio only?)"
        case .empty: "the video has no frames"
        case .unsupportedCodec(let codec): "unsupported codec: \(codec)"
        case .rangeOutsideDuration(let start, let end, let duration):
            "range \(Self.seconds(start))–\(Self.seconds(end)) s is outside the video's \(Self.seconds(duration)) s"
        case .stripTooLarge(let bytes, let limit): "the strip would take \(bytes) bytes decoded, over the limit of \(limit)"
        case .decodeFailed(let reason): "decoding failed: \(reason)"
        case .exportFailed(let reason): "export failed: \(reason)"
        case .librariesUnavailable(let reason): "ffmpeg libraries unavailable: \(reason)"
        case .notFound: "no such file"
        case .cancelled: "cancelled"
        }
    }

    /// A short stable name for the kind of failure (used in JSON output and tests).
    public var kind: String {
        switch self {
        case .unreadable: "unreadable"
        case .notAVideo: "notAVideo"
        case .truncated: "truncated"
        case .corrupt: "corrupt"
        case .noVideoStream: "noVideoStream"
        case .empty: "empty"
        case .unsupportedCodec: "unsupportedCodec"
        case .rangeOutsideDuration: "rangeOutsideDuration"
        case .stripTooLarge: "stripTooLarge"
        case .decodeFailed: "decodeFailed"
        case .exportFailed: "exportFailed"
        case .librariesUnavailable: "librariesUnavailable"
        case .notFound: "notFound"
        case .cancelled: "cancelled"
        }
    }

    /// The host-facing category: `ErrorCategory.unsupported` for a file that is no video or uses a
    /// codec ffmpeg's libraries lack, `ErrorCategory.badInput` for a range outside the duration,
    /// `ErrorCategory.tooLarge` for a strip over its byte limit, and the matching one for the others.
    public var category: ErrorCategory {
        switch self {
        case .unreadable, .exportFailed: .io
        case .notAVideo, .noVideoStream, .unsupportedCodec: .unsupported
        case .truncated: .truncated
        case .corrupt, .empty, .decodeFailed: .corrupt
        case .rangeOutsideDuration: .badInput
        case .stripTooLarge: .tooLarge
        case .librariesUnavailable: .libraryUnavailable
        case .notFound: .notFound
        case .cancelled: .cancelled
        }
    }

    private static func seconds(_ value: Double) -> String {
        (value * 1000).rounded() / 1000 == value ? "\(value)" : String(cFormat: "%.3f", value)
    }
}
