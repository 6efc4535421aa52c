import CTesseraJXL
public import FoundationEssentials
import TesseraCore

/// JPEG XL output through libjxl (loaded on first use), on several threads.
enum JXLEncoder {
    /// libjxl's distance for a quality of 1–100, as `cjxl -q` maps it from 30 up (100: lossless;
    /// 90 is 1.0, visually lossless; 85 is 1.45), continued straight below 30.
    static func distance(quality: Int) -> Float {
        let steps = Float(100 - min(max(quality, 1), 100))
        return 0.1 + steps * 0.09
    }

    static func encode(_ pixels: PixelBuffer, quality: Int, lossless: Bool, profile: ICCProfile?) throws(ImageEncodingError) -> Data {
        _ = try encoderTable(Libraries.jxl)
        guard (1...100).contains(quality) else { throw .invalidParameter("JPEG XL quality \(quality) is not 1–100") }
        var length = 0
        var error = [CChar](repeating: 0, count: 256)
        let iccBytes = profile?.data ?? []
        let output = pixels.bytes.withUnsafeBufferPointer { bytes in
            iccBytes.withUnsafeBufferPointer { icc in
                tessera_jxl_encode(
                    bytes.baseAddress!, UInt32(pixels.width), UInt32(pixels.height), UInt32(pixels.format.bytesPerPixel),
                    lossless || quality == 100 ? 1 : 0, distance(quality: quality), icc.isEmpty ? nil : icc.baseAddress, icc.count,
                    Int32(Libraries.threadCount), &length, &error)
            }
        }
        return try take(output, length: length, error: error)
    }

    /// A JPEG file's bytes as a JPEG XL file that decodes back to them, bit for bit.
    static func recompress(jpeg: Data) throws(ImageEncodingError) -> Data {
        var length = 0
        var error = [CChar](repeating: 0, count: 256)
        let output = jpeg.withUnsafeBytes { bytes in
            tessera_jxl_recompress_jpeg(
                bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), bytes.count, Int32(Libraries.threadCount), &length, &error)
        }
        return try take(output, length: length, error: error)
    }

    private static func take(_ output: UnsafeMutablePointer<UInt8>?, length: Int, error: [CChar]) throws(ImageEncodingError) -> Data {
        guard let output else {
            let message = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if message.contains("cannot load") { throw .libraryUnavailable(message) }
            throw .encoderFailed(message)
        }
        defer { tessera_jxl_free(output) }
        return Data(bytes: output, count: length)
    }
}

/// Tessera's public entry to lossless JPEG → JPEG XL recompression.
extension ImageEncoder {
    /// `jpeg`'s bytes recompressed as JPEG XL (typically a fifth smaller), keeping everything
    /// needed to rebuild the original file exactly (`djxl out.jxl back.jpg`): libjxl's
    /// `JxlEncoderAddJPEGFrame` with its JPEG metadata stored.
    /// - Throws: ``ImageEncodingError`` when libjxl is missing or cannot take this JPEG
    ///   (arithmetic coding, some unusual layouts).
    public static func recompressJPEGAsJPEGXL(_ jpeg: Data) throws(ImageEncodingError) -> Data {
        _ = try encoderTable(Libraries.jxl)
        return try JXLEncoder.recompress(jpeg: jpeg)
    }
}
