import TesseraCore

/// A finished strip's cache key: the file's identity and the request.
struct FrameStripKey: Hashable {
    let file: FileIdentity
    let request: FrameStripRequest
}
