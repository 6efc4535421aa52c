import FoundationEssentials
import NIOCore
import TesseraCodecs
import TesseraCore
import TesseraIIIF
import TesseraVideo

/// What the video routes ask of the library: a video's properties, frame strips as one sprite
/// image with its WebVTT track, and the file's media type. Answers are cached with the image
/// responses (same budget, deadline and single flight: ``ResponseAnswers/answer(_:source:make:)``).
final class VideoService: Sendable {
    /// The answers it shares with the image routes.
    let answers: ResponseAnswers
    let executor: WorkExecutor
    /// The quality of sprites' JPEGs.
    let jpegQuality: Int
    let strips: FrameStripGenerator
    private let assets = Locked(LRUCache<FileIdentity, VideoAsset>(costLimit: 1024))

    /// The bounds of a sprite request: frames per sprite and frame height in pixels.
    static let frameCountRange = 1...200
    static let frameHeightRange = 16...360

    /// A service answering through `answers`, its work on `executor`.
    init(answers: ResponseAnswers, executor: WorkExecutor, jpegQuality: Int) {
        self.answers = answers
        self.executor = executor
        self.jpegQuality = jpegQuality
        // A small cache: the sprite's JPEG is what is kept (in the response cache); the decoded
        // strip only bridges a sprite and its track asked for together.
        strips = FrameStripGenerator(executor: executor, cacheByteLimit: 16 << 20, maximumStripBytes: 64 << 20)
    }

    /// The video `identifier` names, probed once per file version.
    /// - Throws: `IdentifierError`; ``VideoError`` when the file is not a video Tessera reads.
    func asset(_ source: ResolvedSource) async throws -> VideoAsset {
        if let known = assets.withLock({ $0.value(for: source.identity) }) { return known }
        // ffmpeg opens still images too (as one-frame videos); as in `MediaProperties`, a file in an
        // image format is an image, whatever else could read it.
        let path = try Self.filePath(of: source)
        guard !Self.isImage(path) else { throw ServerError(.notFound, "\(source.relativePath) is not a video") }
        let asset: VideoAsset
        do {
            asset = try await VideoAsset.load(path: path)
        } catch {
            // (A `catch .notAVideo` clause here crashes Swift 6.3's SIL ownership verifier.)
            if case .notAVideo = error { throw ServerError(.notFound, "\(source.relativePath) is not a video") }
            throw error
        }
        assets.withLock { _ = $0.insert(asset, for: source.identity, cost: 1) }
        return asset
    }

    /// The video's file: ffmpeg reads files, so videos are served from a directory root only.
    static func filePath(of source: ResolvedSource) throws(ServerError) -> String {
        guard let path = source.path else { throw ServerError(.unsupported, "videos are served from a directory root only") }
        return path
    }

    /// `info.json`: what the trimmer needs before it shows anything.
    func info(_ source: ResolvedSource, id: String) async throws -> ByteBuffer {
        try await answers.answer("video-info|" + id, source: source) {
            let asset = try await self.asset(source)
            let info = VideoInfo(
                id: id, name: String(source.relativePath.split(separator: "/").last ?? ""), duration: asset.duration,
                frameRate: asset.frameRate, frameCount: asset.frameCount, width: asset.displaySize.width,
                height: asset.displaySize.height, codec: asset.codec, hasAudio: asset.hasAudio,
                keyframeTimes: asset.keyframeTimes)
            return try JSONBody.encode(info)
        }
    }

    /// The sprite of `request`: its frames side by side in one row, as JPEG.
    func sprite(_ source: ResolvedSource, _ request: SpriteRequest) async throws -> ByteBuffer {
        try await answers.answer("sprite|" + request.query, source: source) {
            let strip = try await self.strip(source, request)
            let sheet = FrameSheet(strip: strip, columns: strip.frames.count)
            let quality = self.jpegQuality
            return try await self.executor.run(priority: .normal) { _ in
                ByteBuffer(bytes: try ImageEncoder.encode(sheet.image, as: .jpeg(quality: quality)))
            }
        }
    }

    /// The WebVTT thumbnail track of `request`, its cues pointing into the sprite at `spriteURL`.
    func track(_ source: ResolvedSource, _ request: SpriteRequest, spriteURL: String) async throws -> ByteBuffer {
        try await answers.answer("vtt|" + request.query + "|" + spriteURL, source: source) {
            let strip = try await self.strip(source, request)
            let sheet = FrameSheet(strip: strip, columns: strip.frames.count)
            return ByteBuffer(string: WebVTTThumbnails.track(strip: strip, sheet: sheet, imageURL: spriteURL))
        }
    }

    private func strip(_ source: ResolvedSource, _ request: SpriteRequest) async throws -> FrameStrip {
        let asset = try await asset(source)
        return try await strips.strip(
            asset: asset, request: FrameStripRequest(frameCount: request.frames, sizing: .height(request.height), mode: request.mode),
            priority: .high)
    }

    private static func isImage(_ path: String) -> Bool {
        do {
            _ = try ImageDecoder().probe(.file(path))
            return true
        } catch .unknownFormat {
            return false
        } catch {
            return true
        }
    }

    /// The media type of a video file, from its name (the container was already probed).
    static func mediaType(of path: String) -> String {
        switch path.split(separator: ".").last?.lowercased() {
        case "mp4", "m4v": "video/mp4"
        case "mov": "video/quicktime"
        case "webm": "video/webm"
        case "mkv": "video/x-matroska"
        case "ts", "m2ts": "video/mp2t"
        case "ogv": "video/ogg"
        case "avi": "video/x-msvideo"
        default: "application/octet-stream"
        }
    }
}

/// `info.json` of a video (`GET /video/{identifier}/info.json`); times in seconds, sizes in
/// display pixels (rotation and sample aspect ratio applied); `frameCount` is left out when the
/// container does not say.
struct VideoInfo: Encodable {
    var id: String
    var name: String
    var duration: Double
    var frameRate: Double
    var frameCount: Int?
    var width: Int
    var height: Int
    var codec: String
    var hasAudio: Bool
    var keyframeTimes: [Double]
}

/// A sprite or track request: `frames=N&height=H&mode=keyframe|fast|exact`, checked.
struct SpriteRequest: Sendable, Hashable {
    var frames: Int
    var height: Int
    var mode: FrameSamplingMode

    /// - Throws: ``ServerError`` (bad input) naming the parameter that is missing or out of range.
    init(frames: String?, height: String?, mode: String?) throws(ServerError) {
        func number(_ text: String?, _ name: String, _ range: ClosedRange<Int>, default fallback: Int) throws(ServerError) -> Int {
            guard let text else { return fallback }
            guard let value = Int(text), range.contains(value) else {
                throw ServerError(.badInput, "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            return value
        }
        self.frames = try number(frames, "frames", VideoService.frameCountRange, default: 10)
        self.height = try number(height, "height", VideoService.frameHeightRange, default: 90)
        guard let parsed = FrameSamplingMode(rawValue: mode ?? "fast") else {
            throw ServerError(.badInput, "mode must be keyframe, fast or exact")
        }
        self.mode = parsed
    }

    /// The canonical query: the same for every spelling of one request.
    var query: String { "frames=\(frames)&height=\(height)&mode=\(mode.rawValue)" }
}
