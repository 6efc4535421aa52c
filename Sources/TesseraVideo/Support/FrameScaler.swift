import CTesseraAV
import TesseraCore

/// Scales decoded frames straight into small RGBA buffers with swscale, so no full-size RGBA
/// copy of a frame ever exists: the decoder's own YUV planes are the only full-resolution memory.
final class FrameScaler {
    private let av: TesseraAV
    private var context: OpaquePointer?
    private var key: (width: Int32, height: Int32, format: Int32, output: PixelSize)?
    /// Padded rows swscale writes into (kept from frame to frame).
    private var scratch: [UInt8] = []

    init(av: TesseraAV) { self.av = av }

    deinit { if let context { av.sws_freeContext(context) } }

    /// `frame` scaled to `size` (stored orientation, pixels) as straight-alpha RGBA.
    func scale(_ frame: UnsafeMutablePointer<AVFrame>, to size: PixelSize) throws(VideoError) -> PixelBuffer {
        let source = frame.pointee
        if key == nil || key!.width != source.width || key!.height != source.height || key!.format != source.format || key!.output != size {
            if let context { av.sws_freeContext(context) }
            // Area averaging: every source pixel counts once, so a 12× shrink neither aliases nor
            // costs a wide kernel per output pixel.
            context = av.sws_getContext(
                source.width, source.height, AVPixelFormat(source.format), Int32(size.width), Int32(size.height),
                AV_PIX_FMT_RGBA, SWS_AREA, nil, nil, nil)
            key = (source.width, source.height, source.format, size)
        }
        guard let context else { throw .decodeFailed(reason: "no scaler from pixel format \(source.format)") }
        var output = PixelBuffer(width: size.width, height: size.height, format: .rgba8)
        // swscale's SIMD stores may run past a row's last pixel (seen: 13 bytes, converting stills):
        // it writes into rows padded to 64 bytes, with a spare row, and they are copied out.
        let stride = (output.bytesPerRow + 63) / 64 * 64
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: repeatElement(0, count: stride * (size.height + 1)))
        let rows = scratch.withUnsafeMutableBufferPointer { destination -> Int32 in
            var planes: [UnsafeMutablePointer<UInt8>?] = [destination.baseAddress, nil, nil, nil]
            var strides: [Int32] = [Int32(stride), 0, 0, 0]
            return frame.withPlanes { sourcePlanes, sourceStrides in
                av.sws_scale(context, readOnly(sourcePlanes), sourceStrides, 0, source.height, &planes, &strides)
            }
        }
        guard rows == Int32(size.height) else { throw .decodeFailed(reason: "scaling produced \(rows) of \(size.height) rows") }
        let rowBytes = output.bytesPerRow
        output.bytes.withUnsafeMutableBufferPointer { target in
            scratch.withUnsafeBufferPointer { padded in
                for y in 0..<size.height {
                    (target.baseAddress! + y * rowBytes).update(from: padded.baseAddress! + y * stride, count: rowBytes)
                }
            }
        }
        return output
    }
}
