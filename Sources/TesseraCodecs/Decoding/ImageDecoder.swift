import FoundationEssentials
public import TesseraCore

/// Probes and decodes images of every format Tessera reads, choosing the codec from the bytes.
///
/// Decoding is synchronous CPU work: call it from a background task or thread, never from a
/// latency-sensitive one. Every failure is an ``ImageDecodingError``.
public struct ImageDecoder: Sendable {
    /// The limits, target size, colour handling and page of every probe and decode.
    public var options: DecodeOptions

    /// A decoder with `options`; it holds no other state, so one may be shared freely.
    public init(options: DecodeOptions = DecodeOptions()) {
        self.options = options
    }

    /// Reads only the headers: format, size, orientation, alpha, depth, colour model, frame count,
    /// and the memory a full decode would take. Pixel data is neither read nor allocated.
    ///
    /// The headers are checked against each other, against the file's length and against
    /// ``options``' limits, so a file that no decode with these options would accept fails here too.
    public func probe(_ source: ImageSource) throws(ImageDecodingError) -> ImageProperties {
        try Header(source, options: options, countsPages: true).properties
    }

    /// Every page's size upright, in pixels, from the headers in one pass (a PDF opened once, a
    /// TIFF's directories walked once): what a document's table of contents needs, without a probe
    /// per page. One size, the image's, for anything that is not a document. A page that cannot be
    /// read is 0×0; reading it reports why.
    public func pageSizes(_ source: ImageSource) throws(ImageDecodingError) -> [PixelSize] {
        var options = self.options
        options.pageIndex = 0
        let header = try Header(source, options: options, countsPages: true)
        switch header.kind {
        case .pdf(let pdf): return pdf.pageSizes()
        case .tiff(let tiff): return tiff.pageSizes
        case .heif(let heif): return heif.pageSizes()
        default: return [header.properties.displaySize]
        }
    }

    /// Decodes the first frame (of a PDF, the page ``DecodeOptions/pageIndex`` names), as stored (apply ``ImageProperties/orientation`` to turn it upright).
    public func decode(_ source: ImageSource) throws(ImageDecodingError) -> DecodedImage {
        try decode(try Header(source, options: options))
    }

    func decode(_ header: Header) throws(ImageDecodingError) -> DecodedImage {
        if let reader = try header.scanlineReader(options: options) {
            try options.limits.check(reader.outputSize, reader.outputFormat)
            let pixels = try reader.readAll()
            var properties = header.properties
            properties.warnings += reader.warnings
            return DecodedImage(
                pixels: pixels, properties: properties, profile: reader.convertsColor ? nil : properties.iccProfile,
                isTruncated: reader.isTruncated, colorManagement: options.colorManagement)
        }
        let pixels: PixelBuffer
        switch header.kind {
        case .webp(let webp):
            pixels = try WebPDecoder.decode(header.source, header: webp, options: options)
        case .heif(let heif):
            try options.limits.check(header.properties.size, header.properties.decodedFormat)
            pixels = try heif.decode(format: header.properties.decodedFormat, expectedSize: header.properties.size)
        case .svg(let svg):
            let target = Self.vectorTarget(svg.size, options.minimumSize)
            try options.limits.check(target, header.properties.decodedFormat)
            pixels = try svg.render(at: target)
        case .pdf(let pdf):
            let target = Self.vectorTarget(pdf.size, options.minimumSize)
            try options.limits.check(target, header.properties.decodedFormat)
            pixels = try pdf.render(at: target)
        case .jxl(let jxl):
            pixels = try jxl.decode(limits: options.limits)
        case .jpeg, .png, .gif, .tiff, .jp2, .still:
            preconditionFailure("streamed formats are handled above")
        }
        return DecodedImage(
            pixels: pixels, properties: header.properties, profile: header.properties.iccProfile, isTruncated: false,
            colorManagement: options.colorManagement)
    }
}

extension ImageDecoder {
    /// The size vector art of nominal `size` is drawn at: the smallest that covers `minimum`, larger
    /// than `size` too (nothing is lost by drawing it larger); `size` itself without a minimum.
    static func vectorTarget(_ size: PixelSize, _ minimum: PixelSize?) -> PixelSize {
        minimum.map { size.scaled(toward: $0, mode: .fill) } ?? size
    }
}

/// A sniffed, header-parsed input, ready to decode.
struct Header {
    enum Kind {
        case jpeg(JPEGHeader)
        case png(PNGHeader)
        case gif(GIFHeader)
        case webp(WebPHeader)
        case heif(HEIFDecoder)
        case tiff(TIFFFile)
        case svg(SVGDecoder)
        case pdf(PDFDecoder)
        case jp2(JP2Header)
        case jxl(JXLDecoder)
        /// BMP, an icon's BMP entry, PNM/PAM, TGA: decoded by ffmpeg's image decoders.
        case still(StillImageHeader)
    }

    /// The bytes decoded: the file's, or an icon's PNG entry's.
    let source: ImageSource
    let kind: Kind
    let properties: ImageProperties

    /// Parses and checks the headers; `options` give the limits and whether a file that ends early
    /// may still be decoded. `countsPages`: a multi-page TIFF's directories are all walked to count
    /// its pages (a probe); a decode stops at the page it reads.
    init(_ source: ImageSource, options: DecodeOptions, countsPages: Bool = false) throws(ImageDecodingError) {
        var source = source
        let stream = try source.openStream()
        let length = stream.length
        guard length > 0 else { throw .empty }
        let prefix = stream.read(ImageFormat.sniffLength)
        guard let format = ImageFormat(sniffing: prefix) ?? Self.tgaByFooter(stream) else {
            if let failure = stream.readFailure { throw failure }
            if let unread = UnreadImageFormat(prefix: prefix) { throw .unsupported(reason: "\(unread.name) images are not read") }
            throw .unknownFormat
        }
        switch format {
        case .jpeg:
            let header = try JPEGHeader(reading: stream)
            (kind, properties) = (.jpeg(header), header.properties(fileByteCount: length))
        case .png:
            let header = try PNGHeader(reading: stream, allowsTruncatedData: options.allowsTruncatedData)
            (kind, properties) = (.png(header), header.properties(fileByteCount: length))
        case .gif:
            let header = try GIFHeader(reading: stream, limits: options.limits)
            (kind, properties) = (.gif(header), header.properties(fileByteCount: length))
        case .webp:
            let header = try WebPHeader(reading: stream, limits: options.limits)
            (kind, properties) = (.webp(header), header.properties(fileByteCount: length))
        case .heic, .avif:
            let heif = try HEIFDecoder(source, limits: options.limits, page: options.pageIndex)
            (kind, properties) = (.heif(heif), heif.properties(format: format, fileByteCount: length))
        case .tiff:
            let tiff =
                if let image = options.tiffImage {
                    try TIFFFile(source, fileByteCount: length, limits: options.limits, image: image)
                } else {
                    try TIFFFile(source, fileByteCount: length, limits: options.limits, page: options.pageIndex, countsPages: countsPages)
                }
            (kind, properties) = (.tiff(tiff), tiff.properties(fileByteCount: length))
        case .svg:
            let svg = try SVGDecoder(source)
            (kind, properties) = (.svg(svg), svg.properties(fileByteCount: length))
        case .pdf:
            let pdf = try PDFDecoder(source, pageIndex: options.pageIndex, options: options)
            (kind, properties) = (.pdf(pdf), pdf.properties(fileByteCount: length))
        case .jp2, .j2k:
            let header = try JP2Header(reading: stream, limits: options.limits)
            (kind, properties) = (.jp2(header), header.properties(fileByteCount: length))
        case .jxl:
            let jxl = try JXLDecoder(source, limits: options.limits)
            (kind, properties) = (.jxl(jxl), jxl.properties(fileByteCount: length))
        case .bmp, .pnm, .tga:
            let header =
                switch format {
                case .bmp: try StillImageHeader.bmp(stream, limits: options.limits)
                case .pnm: try StillImageHeader.pnm(stream, limits: options.limits)
                default: try StillImageHeader.tga(stream, limits: options.limits)
                }
            (kind, properties) = (.still(header), header.properties(fileByteCount: length))
        case .dicom, .slide:
            // Never sniffed: slides are read by their kinds, tile by tile.
            throw .unsupported(reason: "a whole-slide image is read by its levels, not decoded whole")
        case .ico:
            let icon = try StillImageHeader.icon(stream, limits: options.limits)
            if let header = icon.header {
                (kind, properties) = (.still(header), header.properties(fileByteCount: length))
            } else {
                // A PNG entry is a whole PNG file: read as one, reported as the icon.
                source = .data(Data(icon.png ?? []))
                let header = try PNGHeader(reading: try source.openStream(), allowsTruncatedData: options.allowsTruncatedData)
                var png = header.properties(fileByteCount: length)
                png.format = .ico
                (kind, properties) = (.png(header), png)
            }
        }
        self.source = source
        // A page of an image that has one is the image itself; any other is not there.
        if options.pageIndex != 0 && properties.pageCount == 1 { throw .noSuchPage(index: options.pageIndex, count: 1) }
    }

    /// TGA when the file ends with version 2's footer, whatever its header (sniffing saw none).
    private static func tgaByFooter(_ stream: ByteStream) -> ImageFormat? {
        guard stream.length >= 18 + 26 else { return nil }
        stream.seek(to: stream.length - 18)
        return stream.read(18) == Array("TRUEVISION-XFILE.\0".utf8) ? .tga : nil
    }

    /// A row-streaming reader for the formats that have one; nil for those decoded whole.
    /// - Parameters:
    ///   - reduction: halvings the decoder itself applies (``ImageProperties/decoderReductions``
    ///     at most: JPEG's DCT scaling, JPEG 2000's resolution levels), instead of the most that
    ///     still covers ``DecodeOptions/minimumSize``; the other formats ignore it.
    ///   - window: the rows to produce (exactly) and columns (at least), in the reader's output;
    ///     nil: all.
    func scanlineReader(
        options: DecodeOptions, reduction: Int? = nil, window: PixelRect? = nil
    ) throws(ImageDecodingError) -> (any ScanlineReader)? {
        switch kind {
        case .jpeg(let header):
            return try JPEGScanlineReader(
                source: source, header: header, options: options, denominator: reduction.map { 1 << $0 }, window: window)
        case .jp2(let header):
            return try JP2ScanlineReader(
                source: source, header: header, profile: properties.iccProfile, options: options,
                reduction: reduction ?? JP2ScanlineReader.reduction(for: header, minimumSize: options.minimumSize), window: window)
        default:
            break
        }
        guard let reader = try wholeScanlineReader(options: options) else { return nil }
        guard let window else { return reader }
        return RowWindowReader(reader, rows: window.y..<(window.y + window.height))
    }

    private func wholeScanlineReader(options: DecodeOptions) throws(ImageDecodingError) -> (any ScanlineReader)? {
        switch kind {
        case .jpeg(let header): try JPEGScanlineReader(source: source, header: header, options: options)
        case .png(let header): try PNGScanlineReader(source: source, header: header, profile: properties.iccProfile, options: options)
        case .gif(let header): try GIFScanlineReader(source: source, header: header, options: options)
        case .tiff(let file): try TIFFScanlineReader(file: file, profile: properties.iccProfile, options: options)
        case .still(let header): try StillScanlineReader(source: source, header: header, limits: options.limits)
        case .jp2: nil  // handled above
        case .webp, .heif, .svg, .pdf, .jxl: nil
        }
    }
}
