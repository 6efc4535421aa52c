import FoundationEssentials
import NIOCore
import TesseraCodecs
import TesseraCore
import TesseraIIIF

/// What makes a substitute's images its own: made gray, and the policy's watermark drawn in. Applied
/// to an encoded answer (decoded, marked, encoded again in its format): a substitute's answers are
/// small (``AccessPolicy/Substitute/maxSize`` at most, or a tile), so the second encoding costs a
/// few milliseconds, and every way an image is answered (stored tiles, regions, Deep Zoom) gets
/// the same marks without a path of its own. An animation's substitute is its first frame.
enum SubstituteMarking {
    static func apply(_ substitute: AccessPolicy.Substitute, to body: ByteBuffer, format: IIIFImageRequest.Format, jpegQuality: Int) throws
        -> ByteBuffer
    {
        var pixels = try ImageDecoder().decode(.data(Data(body.readableBytesView))).pixels
        if substitute.grayOnly, pixels.format == .rgb8 || pixels.format == .rgba8 {
            pixels = pixels.converted(to: pixels.format.hasAlpha ? .grayAlpha8 : .gray8)
        }
        if let text = substitute.watermark { pixels = try Watermark.draw(text, on: pixels) }
        return ByteBuffer(bytes: try RegionRenderer.encode(pixels, as: format, jpegQuality: jpegQuality))
    }
}
