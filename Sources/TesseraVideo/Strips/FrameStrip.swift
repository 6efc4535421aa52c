public import TesseraCore

/// One frame of a strip: which slot it fills, the time it was asked for and the time it shows.
public struct StripFrame: Sendable {
    /// The part of the duration this frame stands for.
    public let slot: FrameSlot
    /// Presentation time of the decoded frame, in seconds.
    public let time: Double
    /// The upright frame, RGBA, at the strip's frame size.
    public let image: PixelBuffer
    /// Set when this slot's own frame failed and the picture was borrowed from slot `filledFrom`.
    public let filledFrom: Int?
}

/// A slot whose own frame could not be decoded.
public struct FrameFailure: TesseraError {
    /// The index of the slot that failed.
    public let slot: Int
    /// Why its frame failed.
    public let error: VideoError

    /// The category of ``error``.
    public var category: ErrorCategory { error.category }
    public var description: String { "frame \(slot): \(error)" }
}

/// N frames across a video, one per equal slot, all the same size.
public struct FrameStrip: Sendable {
    /// The video the frames come from.
    public let asset: VideoAsset
    /// The request the strip answers.
    public let request: FrameStripRequest
    /// Exactly `request.frameCount` frames, in slot order: a failed slot is filled, never dropped.
    public let frames: [StripFrame]
    /// Slots whose own frame failed, filled from a neighbour; empty when every frame decoded.
    public let failures: [FrameFailure]
    /// Upright size of every frame, in pixels.
    public let frameSize: PixelSize

    /// Decoded bytes the strip holds.
    public var byteCount: Int { frames.reduce(0) { $0 + $1.image.byteCount } }
}
