import CTesseraDeflate
import FoundationEssentials
import TesseraCore

/// PNG written for speed (`.png(compressionLevel: 1)` and `2`): every row Sub-filtered (each byte
/// less the one a pixel before it) and the whole compressed by libdeflate at its level 1, a third of
/// zlib's time at level 1 for about the same size. A map tile is 256² RGBA of photographic detail,
/// whose PNG spent half its time in zlib (perf, a warped tile: 53 %). The chunks are PNG's own
/// (IHDR, iCCP, IDAT, IEND), so any decoder reads the file; libpng writes every other level.
enum FastPNGWriter {
    /// `pixels` (8 bits a sample) as a PNG, `profile` embedded; nil when libdeflate is not there (the
    /// caller writes it with libpng).
    static func encode(_ pixels: PixelBuffer, profile: ICCProfile?) throws(ImageEncodingError) -> Data? {
        guard let library = try? Libraries.deflate.get(), let compressor = library.libdeflate_alloc_compressor(1) else { return nil }
        defer { library.libdeflate_free_compressor(compressor) }
        let channels = pixels.format.bytesPerPixel, rowBytes = pixels.width * channels
        // Each row: its filter type (1, Sub), then its bytes less those a pixel before.
        var filtered = [UInt8](repeating: 0, count: (rowBytes + 1) * pixels.height)
        pixels.bytes.withUnsafeBufferPointer { source in
            filtered.withUnsafeMutableBufferPointer { target in
                for y in 0..<pixels.height {
                    let from = source.baseAddress! + y * pixels.bytesPerRow, to = target.baseAddress! + y * (rowBytes + 1)
                    to[0] = 1
                    for x in 0..<rowBytes { to[1 + x] = x < channels ? from[x] : from[x] &- from[x - channels] }
                }
            }
        }
        let colourType: UInt8 =
            switch pixels.format {
            case .gray8: 0
            case .grayAlpha8: 4
            case .rgb8: 2
            case .rgba8: 6
            }
        var file: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        func chunk(_ type: String, _ data: [UInt8]) {
            let body = Array(type.utf8) + data
            file += withUnsafeBytes(of: UInt32(data.count).bigEndian, Array.init) + body
            let crc = body.withUnsafeBytes { UInt32(library.libdeflate_crc32(0, $0.baseAddress, $0.count)) }
            file += withUnsafeBytes(of: crc.bigEndian, Array.init)
        }
        func zlib(_ bytes: [UInt8]) throws(ImageEncodingError) -> [UInt8] {
            var output = [UInt8](repeating: 0, count: library.libdeflate_zlib_compress_bound(compressor, bytes.count))
            let written = bytes.withUnsafeBytes { input in
                output.withUnsafeMutableBytes {
                    library.libdeflate_zlib_compress(compressor, input.baseAddress, input.count, $0.baseAddress, $0.count)
                }
            }
            guard written > 0 else { throw .encoderFailed("libdeflate could not compress") }
            return Array(output.prefix(written))
        }
        let size = withUnsafeBytes(of: UInt32(pixels.width).bigEndian, Array.init) + withUnsafeBytes(of: UInt32(pixels.height).bigEndian, Array.init)
        chunk("IHDR", size + [8, colourType, 0, 0, 0])
        if let profile { chunk("iCCP", Array("ICC profile".utf8) + [0, 0] + (try zlib(profile.data))) }
        chunk("IDAT", try zlib(filtered))
        chunk("IEND", [])
        return Data(file)
    }
}
