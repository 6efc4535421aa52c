import TesseraCore

/// A decode delivered row by row, top to bottom, so that a consumer (a full-size bitmap, a
/// downscaler, a tile builder) holds only the rows it needs.
protocol ScanlineReader: AnyObject {
    /// Size of the rows this reader produces (after any shrink-on-load).
    var outputSize: PixelSize { get }
    var outputFormat: PixelFormat { get }
    /// True once the input ended early and truncation was allowed.
    var isTruncated: Bool { get }
    /// True when the rows come out in sRGB although the file's are not: a reader of 16-bit
    /// samples converts them itself, before reducing them to 8 bits (``DecodeOptions/colorManagement``).
    /// Otherwise converting is the caller's, on whatever rows or pixels it ends up with.
    var convertsColor: Bool { get }
    /// Decodes the next rows into `destination`, which has room for `maximumRows` rows of
    /// `outputSize.width × outputFormat.bytesPerPixel` bytes. Returns how many rows it wrote
    /// (at least 1 until every row has been delivered, then 0).
    func readRows(into destination: UnsafeMutablePointer<UInt8>, maximumRows: Int) throws(ImageDecodingError) -> Int
}

extension ScanlineReader {
    var convertsColor: Bool { false }

    /// Reads every remaining row into one bitmap.
    func readAll() throws(ImageDecodingError) -> PixelBuffer {
        var buffer = PixelBuffer(width: outputSize.width, height: outputSize.height, format: outputFormat)
        let bytesPerRow = buffer.bytesPerRow
        let height = outputSize.height
        var row = 0
        var failure: ImageDecodingError?
        buffer.bytes.withUnsafeMutableBufferPointer { bytes in
            guard let base = bytes.baseAddress else { return }
            while row < height {
                do throws(ImageDecodingError) {
                    let count = try readRows(into: base + row * bytesPerRow, maximumRows: height - row)
                    if count == 0 { break }
                    row += count
                } catch {
                    failure = error
                    return
                }
            }
        }
        if let failure { throw failure }
        guard row == height else { throw .truncated(reason: "the decoder stopped after \(row) of \(height) rows") }
        return buffer
    }
}
