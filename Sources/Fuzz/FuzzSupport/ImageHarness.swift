public import FoundationEssentials
public import TesseraCodecs
import TesseraCore

/// Everything Tessera does with the bytes of an image file, run on one input: probe, full decode,
/// thumbnail, animation frames and streamed rows, each with limits low enough that a decompression
/// bomb fails (or is thumbnailed) at the cost of a small image.
public enum ImageHarness {
    /// 2048 × 2048 pixels, 32 MiB at the widest pixel: what one buffer sized from a fuzz input may
    /// take. A header may claim anything; past this the decoders must refuse it before allocating.
    public static let maximumPixelCount = 2048 * 2048

    /// Runs `data` through every path when it is in one of `formats`, and through `extra` (a
    /// format's own reader); rejects it otherwise.
    public static func run(_ data: Data, formats: Set<ImageFormat>, extra: ((Data) -> Void)? = nil) -> FuzzVerdict {
        guard let format = ImageFormat(sniffing: data.prefix(ImageFormat.sniffLength)), formats.contains(format) else {
            return .rejected
        }
        let source = ImageSource.data(data)
        // Truncation allowed: decoders then go on past the end of the data, the riskier path.
        let decoder = ImageDecoder(options: DecodeOptions(maximumPixelCount: maximumPixelCount, allowsTruncatedData: true))
        let properties = try? decoder.probe(source)
        _ = try? decoder.decode(source)
        // A document's other pages: their sizes in one pass, and its last page (at most the 8th).
        if let properties, properties.pageCount > 1 {
            _ = try? decoder.pageSizes(source)
            let last = ImageDecoder(
                options: DecodeOptions(
                    maximumPixelCount: maximumPixelCount, allowsTruncatedData: true, pageIndex: min(properties.pageCount, 8) - 1))
            _ = try? last.decode(source)
        }

        // Both sizings the thumbnailer has, chosen by the input so each input is repeatable.
        let sizing: ThumbnailOptions.Sizing =
            data.count.isMultiple(of: 2)
            ? .fit(maxPixelSize: 64) : .box(PixelSize(width: 48, height: 32), mode: .centerCrop)
        let options = ThumbnailOptions(sizing: sizing, embeddedThumbnail: .ifAbsent, maximumPixelCount: maximumPixelCount)
        _ = try? Thumbnailer().thumbnail(source, options: options)

        // Animations composed frame by frame and shrunk (at most 16 frames, so an input of thousands
        // stays cheap; the work limit still applies to all of them).
        var animationOptions = options
        animationOptions.maximumAnimationPixelCount = 64 * maximumPixelCount
        if let frames = try? Thumbnailer().thumbnailFrames(source, options: animationOptions) {
            for _ in 0..<16 where (try? frames.next()) != nil {}
        }

        if let rows = try? ImageRowReader(source, options: DecodeOptions(maximumPixelCount: maximumPixelCount)) {
            try? rows.forEachRow { _ in }
        }
        readWindow(source, seed: data.count)
        extra?(data)
        return .tried
    }

    /// Reads a window of rows and columns at a reduction, as the server's region reads take them
    /// (JPEG: rows above passed over, or entered at a restart marker when `source` is a file;
    /// columns cropped), placed by `seed` (the input's length) so each input is repeatable.
    public static func readWindow(_ source: ImageSource, seed: Int) {
        let reduction = seed % 4
        if let rows = try? ImageRowReader(source, options: DecodeOptions(maximumPixelCount: maximumPixelCount), reduction: reduction) {
            let size = rows.rowSize
            let window = PixelRect(x: size.width / 3, y: size.height / 2, width: max(1, size.width / 4), height: max(1, size.height / 3))
            try? rows.forEachRow(in: window) { row in
                precondition(
                    row.count == window.intersection(
                        PixelRect(x: 0, y: 0, width: size.width, height: size.height)
                    ).width * rows.format.bytesPerPixel)
            }
        }
    }
}
