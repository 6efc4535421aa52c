public import TesseraCodecs
public import TesseraCore

/// Pixels already in memory as a ``RegionSource`` of one level: what a reader hands over whole (a
/// slide's label or macro photo as OpenSlide decodes it), served as any other source is.
public struct HeldRegionSource: RegionSource {
    public let properties: ImageProperties
    public let nativeLevels: [NativeLevel]
    public var pixelFormat: PixelFormat { pixels.format }
    public var holdsWholeImage: Bool { true }
    private let pixels: PixelBuffer

    /// `pixels`, described as an image of `format`.
    public init(_ pixels: PixelBuffer, format: ImageFormat) {
        self.pixels = pixels
        properties = ImageProperties(format: format, size: pixels.size, decodedFormat: pixels.format, fileByteCount: pixels.bytes.count)
        nativeLevels = [NativeLevel(size: pixels.size, downsample: 1)]
    }

    public func cost(of rect: PixelRect, level: Int) -> RegionCost { RegionCost(decodedPixelCount: 0, rowsPassedOver: 0) }

    public func forEachRow(in rect: PixelRect, level: Int, context: WorkContext, _ body: (UnsafeBufferPointer<UInt8>) -> Void) throws {
        let rect = rect.intersection(PixelRect(x: 0, y: 0, width: pixels.width, height: pixels.height))
        guard rect.width > 0, rect.height > 0 else { return }
        let channels = pixels.format.bytesPerPixel
        pixels.bytes.withUnsafeBufferPointer { bytes in
            for y in rect.y..<(rect.y + rect.height) {
                let start = (y * pixels.width + rect.x) * channels
                body(UnsafeBufferPointer(rebasing: bytes[start..<start + rect.width * channels]))
            }
        }
    }
}
