public import TesseraCore

/// An image's full-resolution rows, top to bottom, for consumers that never want the whole bitmap
/// (tile pyramids). JPEG, PNG, GIF and TIFF stream from a decoder running on its own thread; the
/// other formats are decoded whole first, within ``DecodeOptions/maximumPixelCount``.
public final class ImageRowReader {
    public let properties: ImageProperties
    private let header: Header
    private let options: DecodeOptions

    public init(_ source: ImageSource, options: DecodeOptions = DecodeOptions()) throws(ImageDecodingError) {
        var options = options
        options.minimumSize = nil
        header = try Header(source, options: options)
        properties = header.properties
        self.options = options
    }

    /// The layout of every row.
    public var format: PixelFormat { properties.decodedFormat }

    /// The profile the rows are in, for an encoder to embed; nil when they are sRGB
    /// (``ColorManagement/profile(of:)``).
    public var outputProfile: ICCProfile? { options.colorManagement.profile(of: properties) }

    /// Calls `body` with each row (`width × format.bytesPerPixel` bytes), in order, on the calling
    /// thread. Throws after the rows that preceded a decoding failure, and `.cancelled` soon after
    /// `context` is cancelled.
    ///
    /// - Parameter lookaheadRows: rows the decoder may run ahead of `body` (memory: that many rows),
    ///   for a consumer that works in bursts: a tile builder passes its tile height, so that the next
    ///   band is decoded (and converted) while a band of tiles is encoded.
    public func forEachRow(
        context: WorkContext = .uncancellable, lookaheadRows: Int = 0, _ body: (UnsafeBufferPointer<UInt8>) -> Void
    ) throws(ImageDecodingError) {
        if let reader = try header.scanlineReader(options: options) {
            // Rows are converted as they stream, by the decoding thread and the consuming one both.
            var convert: ScanlinePipeline.RowTransform?
            if options.colorManagement == .convertToSRGB, !reader.convertsColor, let profile = properties.iccProfile,
                let transform = ColorConverter.shared.transform(from: profile, format: reader.outputFormat) {
                let width = reader.outputSize.width
                convert = { rows, count in transform.apply(rows, pixelCount: count * width) }
            }
            try ScanlinePipeline(reader, limits: options.limits, lookaheadRows: lookaheadRows, rowTransform: convert)
                .forEachRow(context: context, body)
            return
        }
        let pixels = try ImageDecoder(options: options).decode(header).pixels
        for y in 0..<pixels.height {
            if y % 64 == 0, context.isCancelled { throw .cancelled }
            pixels.withRow(y, body)
        }
    }
}
