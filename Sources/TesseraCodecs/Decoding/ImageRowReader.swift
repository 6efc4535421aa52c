public import TesseraCore

/// An image's full-resolution rows, top to bottom, for consumers that never want the whole bitmap
/// (tile pyramids). JPEG, PNG, GIF and TIFF stream from a decoder running on its own thread; BMP,
/// ICO, PNM and TGA are decoded by ffmpeg into its frame (in the stored layout) and converted from it
/// row by row; the other formats are decoded whole first, within ``DecodeOptions/maximumPixelCount``.
///
/// A reader can also give its rows at a reduction where the format shrinks while decoding (JPEG's
/// DCT scaling, up to 1/8; a JPEG 2000 codestream's resolution levels), and only the rows and
/// columns of a window, where the format can pass over the others cheaply (JPEG: the rows above
/// are entropy-decoded only, the columns outside the window's iMCUs not at all; JPEG 2000: only the
/// window's code blocks are decoded; other formats decode the rows above and stop below).
public final class ImageRowReader {
    /// The image's header facts, as ``ImageDecoder/probe(_:)`` gives them; sizes are stored sizes.
    public let properties: ImageProperties
    /// The reduction the rows come at: each is `2^rowReduction` times smaller than the stored image
    /// on each side (rounded up). At most the one asked for; 0 for formats that cannot shrink while
    /// decoding.
    public let rowReduction: Int
    /// The size of the image the rows make up, at ``rowReduction``.
    public let rowSize: PixelSize
    private let header: Header
    /// What the rows are decoded with (``DecodeOptions/minimumSize`` cleared).
    public let options: DecodeOptions

    /// Opens `source` and reads its headers; no row is decoded until ``forEachRow(context:lookaheadRows:_:)``.
    /// - Parameters:
    ///   - source: the image's bytes.
    ///   - options: limits and colour handling; ``DecodeOptions/minimumSize`` is ignored.
    ///   - reduction: the reduction wanted (`2^reduction` on each side); the format gives as
    ///     much of it as it can shrink while decoding (``rowReduction``), and the caller the rest.
    /// - Throws: ``ImageDecodingError`` when the headers are unreadable or refused.
    public init(_ source: ImageSource, options: DecodeOptions = DecodeOptions(), reduction: Int = 0) throws(ImageDecodingError) {
        var options = options
        options.minimumSize = nil
        header = try Header(source, options: options)
        properties = header.properties
        self.options = options
        rowReduction = min(max(0, reduction), properties.decoderReductions)
        let step = 1 << rowReduction
        rowSize = PixelSize(
            width: (properties.size.width + step - 1) / step, height: (properties.size.height + step - 1) / step)
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
    /// - Parameters:
    ///   - context: checked between rows; cancelling it stops the decode.
    ///   - lookaheadRows: rows the decoder may run ahead of `body` (memory: that many rows),
    ///     for a consumer that works in bursts: a tile builder passes its tile height, so that the next
    ///     band is decoded (and converted) while a band of tiles is encoded.
    ///   - body: called with each row; the buffer is valid only during the call.
    public func forEachRow(
        context: WorkContext = .uncancellable, lookaheadRows: Int = 0, _ body: (UnsafeBufferPointer<UInt8>) -> Void
    ) throws(ImageDecodingError) {
        try forEachRow(
            in: PixelRect(x: 0, y: 0, width: rowSize.width, height: rowSize.height),
            context: context, lookaheadRows: lookaheadRows, body)
    }

    /// Calls `body` with each row of `window` (rectangle of the image at ``rowReduction``, clipped
    /// to it), `window.width` pixels each, in order, on the calling thread. Throws as
    /// ``forEachRow(context:lookaheadRows:_:)``.
    public func forEachRow(
        in window: PixelRect, context: WorkContext = .uncancellable, lookaheadRows: Int = 0,
        _ body: (UnsafeBufferPointer<UInt8>) -> Void
    ) throws(ImageDecodingError) {
        let window = window.intersection(PixelRect(x: 0, y: 0, width: rowSize.width, height: rowSize.height))
        guard window.width > 0, window.height > 0 else { return }
        let bytesPerPixel = format.bytesPerPixel
        let whole = window.size == rowSize
        if let reader = try header.scanlineReader(
            options: options, reduction: rowReduction, window: whole ? nil : window)
        {
            // Rows are converted as they stream, by the decoding thread and the consuming one both.
            var convert: ScanlinePipeline.RowTransform?
            if options.colorManagement == .convertToSRGB, !reader.convertsColor, let profile = properties.iccProfile,
                let transform = ColorConverter.shared.transform(from: profile, format: reader.outputFormat)
            {
                let width = reader.outputSize.width
                convert = { rows, count in transform.apply(rows, pixelCount: count * width) }
            }
            let pipeline = try ScanlinePipeline(reader, limits: options.limits, lookaheadRows: lookaheadRows, rowTransform: convert)
            let skipped = (window.x - reader.columnOffset) * bytesPerPixel, count = window.width * bytesPerPixel
            if skipped == 0 && count == reader.outputSize.width * bytesPerPixel {
                try pipeline.forEachRow(context: context, body)
            } else {
                try pipeline.forEachRow(context: context) { row in body(UnsafeBufferPointer(rebasing: row[skipped..<(skipped + count)])) }
            }
            return
        }
        let pixels = try ImageDecoder(options: options).decode(header).pixels
        for y in window.y..<(window.y + window.height) {
            if y % 64 == 0, context.isCancelled { throw .cancelled }
            pixels.withRow(y) { row in
                body(UnsafeBufferPointer(rebasing: row[(window.x * bytesPerPixel)..<((window.x + window.width) * bytesPerPixel)]))
            }
        }
    }
}
