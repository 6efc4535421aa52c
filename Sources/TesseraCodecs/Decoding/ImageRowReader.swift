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

    /// Calls `body` with each row (`width × format.bytesPerPixel` bytes), in order, on the calling
    /// thread. Throws after the rows that preceded a decoding failure, and `.cancelled` soon after
    /// `context` is cancelled.
    public func forEachRow(
        context: WorkContext = .uncancellable, _ body: (UnsafeBufferPointer<UInt8>) -> Void
    ) throws(ImageDecodingError) {
        if var reader = try header.scanlineReader(options: options) {
            if options.colorManagement == .convertToSRGB, let profile = properties.iccProfile,
                let transform = ColorConverter.shared.transform(from: profile, format: reader.outputFormat) {
                reader = ColorConvertingReader(reader, transform: transform)
            }
            try ScanlinePipeline(reader, limits: options.limits).forEachRow(context: context, body)
            return
        }
        let pixels = try ImageDecoder(options: options).decode(header).pixels
        for y in 0..<pixels.height {
            if y % 64 == 0, context.isCancelled { throw .cancelled }
            pixels.withRow(y, body)
        }
    }
}
