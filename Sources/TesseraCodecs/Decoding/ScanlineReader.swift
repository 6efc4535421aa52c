import TesseraCore

/// A decode delivered row by row, top to bottom, so that a consumer (a full-size bitmap, a
/// downscaler, a tile builder) holds only the rows it needs.
protocol ScanlineReader: AnyObject {
    /// Size of the rows this reader produces (after any shrink-on-load).
    var outputSize: PixelSize { get }
    var outputFormat: PixelFormat { get }
    /// True once the input ended early and truncation was allowed, or the data broke off after
    /// some rows and the rest were left blank (then ``warnings`` says so).
    var isTruncated: Bool { get }
    /// What the reader worked around, one line each (damaged data shown as far as it decodes, a
    /// checksum that failed); a decode's ``ImageProperties/warnings`` gain them.
    var warnings: [String] { get }
    /// True when the rows come out in sRGB although the file's are not: a reader of 16-bit
    /// samples converts them itself, before reducing them to 8 bits (``DecodeOptions/colorManagement``).
    /// Otherwise converting is the caller's, on whatever rows or pixels it ends up with.
    var convertsColor: Bool { get }
    /// The column of the full row where each produced row starts (0 unless only some columns are decoded).
    var columnOffset: Int { get }
    /// Decodes the next rows into `destination`, which has room for `maximumRows` rows of
    /// `outputSize.width × outputFormat.bytesPerPixel` bytes. Returns how many rows it wrote
    /// (at least 1 until every row has been delivered, then 0).
    func readRows(into destination: UnsafeMutablePointer<UInt8>, maximumRows: Int) throws(ImageDecodingError) -> Int
}

extension ScanlineReader {
    var convertsColor: Bool { false }
    var warnings: [String] { [] }
    /// The column of the full row where each produced row starts: 0 but for a reader that decodes
    /// only some columns (``JPEGScanlineReader`` with a window).
    var columnOffset: Int { 0 }

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

/// The rows `window` spans of another reader's output, for formats that cannot pass over rows
/// without decoding them: rows above are decoded and dropped, rows below are never read. Every
/// column is produced.
final class RowWindowReader: ScanlineReader {
    private let reader: any ScanlineReader
    let outputSize: PixelSize
    private var rowsToDiscard: Int
    private var remainingRows: Int

    init(_ reader: any ScanlineReader, rows: Range<Int>) {
        self.reader = reader
        let rows = rows.clamped(to: 0..<reader.outputSize.height)
        outputSize = PixelSize(width: reader.outputSize.width, height: rows.count)
        rowsToDiscard = rows.lowerBound
        remainingRows = rows.count
    }

    var outputFormat: PixelFormat { reader.outputFormat }
    var isTruncated: Bool { reader.isTruncated }
    var warnings: [String] { reader.warnings }
    var convertsColor: Bool { reader.convertsColor }
    var columnOffset: Int { reader.columnOffset }

    func readRows(into destination: UnsafeMutablePointer<UInt8>, maximumRows: Int) throws(ImageDecodingError) -> Int {
        while rowsToDiscard > 0 {
            let count = try reader.readRows(into: destination, maximumRows: min(maximumRows, rowsToDiscard))
            guard count > 0 else { return 0 }
            rowsToDiscard -= count
        }
        guard remainingRows > 0 else { return 0 }
        let count = try reader.readRows(into: destination, maximumRows: min(maximumRows, remainingRows))
        remainingRows -= count
        return count
    }
}
