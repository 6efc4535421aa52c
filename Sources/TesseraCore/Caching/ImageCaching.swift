/// Keeps decoded images in memory.
public protocol ImageCaching: Sendable {
    /// The image stored for `key` (an image pipeline request's `imageKey`, a server's tile key), if
    /// the cache still has it.
    func image(for key: String) -> PixelBuffer?
    /// Keeps `image` for `key`, replacing any image there; a cache may decline one it finds too large.
    func store(_ image: PixelBuffer, for key: String)
    /// Drops the image for `key`, if any.
    func removeImage(for key: String)
    /// Drops every image.
    func removeAll()
}
