import TesseraCore

/// A reader whose rows come out converted to sRGB, in place, where they are decoded (on the
/// ``ScanlinePipeline``'s producer thread), with no copy. LittleCMS takes about 7 ns a pixel for a
/// matrix/TRC profile here, so a 16000×12000 Deep Zoom build takes 40–45% longer tagged than
/// untagged whichever thread converts (measured on 2 cores, scripts/bench/colour_bench.py).
final class ColorConvertingReader: ScanlineReader {
    private let reader: any ScanlineReader
    private let transform: ColorTransform

    init(_ reader: any ScanlineReader, transform: ColorTransform) {
        precondition(transform.format == reader.outputFormat)
        self.reader = reader
        self.transform = transform
    }

    var outputSize: PixelSize { reader.outputSize }
    var outputFormat: PixelFormat { reader.outputFormat }
    var isTruncated: Bool { reader.isTruncated }

    func readRows(into destination: UnsafeMutablePointer<UInt8>, maximumRows: Int) throws(ImageDecodingError) -> Int {
        let count = try reader.readRows(into: destination, maximumRows: maximumRows)
        transform.apply(destination, pixelCount: count * outputSize.width)
        return count
    }
}
