public import TesseraCore

/// Keeps decoded images in memory.
public protocol ImageCaching: Sendable {
    func image(for key: String) -> PixelBuffer?
    func store(_ image: PixelBuffer, for key: String)
    func removeImage(for key: String)
    func removeAll()
}
