public import TesseraCodecs
public import TesseraCore

/// An image's or a video's properties: what a host shows for any file it is given, deciding once,
/// here, which of the two a file is.
public enum MediaProperties: Sendable, Hashable, Codable {
    /// An image's header facts.
    case image(ImageProperties)
    /// A video's container facts.
    case video(VideoProperties)

    /// Probes the file at `path`: as an image from its header, and, when its bytes are no image
    /// format, as a video from its container (ffmpeg's libraries are loaded only then).
    /// - Throws: `ImageDecodingError` for a broken image; ``VideoError`` for a broken video, and
    ///   `.notAVideo` (described as neither an image nor a video) when it is neither.
    public static func probe(path: String) async throws -> MediaProperties {
        do {
            return .image(try ImageDecoder().probe(.file(path)))
        } catch .unknownFormat {
            do {
                return .video(VideoProperties(try await VideoAsset.load(path: path)))
            } catch .notAVideo {
                throw MediaKindError()
            }
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let video = try? container.decode(VideoProperties.self) {
            self = .video(video)
        } else {
            self = .image(try container.decode(ImageProperties.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .image(let properties): try properties.encode(to: encoder)
        case .video(let properties): try properties.encode(to: encoder)
        }
    }
}

/// A file whose bytes are neither an image format nor a video container Tessera reads.
public struct MediaKindError: TesseraError, Equatable {
    /// Always `ErrorCategory.unsupported`.
    public var category: ErrorCategory { .unsupported }
    public var description: String { "neither an image nor a video Tessera reads" }
}
