import CGIF
import FoundationEssentials
import TesseraCore

#if canImport(Glibc)
    import Glibc
#endif

/// Decodes a GIF's first frame with giflib onto the logical screen. A non-interlaced frame streams
/// line by line; an interlaced one is first gathered as palette indices (one byte per pixel).
/// Screen areas the frame leaves uncovered are transparent.
final class GIFScanlineReader: ScanlineReader {
    let outputSize: PixelSize
    let outputFormat: PixelFormat
    private(set) var isTruncated = false

    private let handle: CHandle<UnsafeMutablePointer<GifFileType>>
    private var gif: UnsafeMutablePointer<GifFileType> { handle.pointer }
    private let reader: GIFInput
    private let allowsTruncatedData: Bool
    private let limits: AllocationLimits
    private var frame = (x: 0, y: 0, width: 0, height: 0)
    private var palette: [UInt32] = []
    private var transparentIndex = -1
    private var interlacedIndices: ZeroedBuffer<UInt8>?
    private var lineIndices: ZeroedBuffer<UInt8>?
    private var nextRow = 0

    init(source: ImageSource, header: GIFHeader, options: DecodeOptions) throws(ImageDecodingError) {
        reader = try GIFInput(source)
        allowsTruncatedData = options.allowsTruncatedData
        limits = options.limits
        outputSize = header.size
        outputFormat = header.decodedFormat
        var error: Int32 = 0
        guard let gif = DGifOpen(Unmanaged.passUnretained(reader).toOpaque(), gifRead, &error) else {
            throw GIFRecords.failure(error)
        }
        handle = CHandle(gif) { DGifCloseFile($0, nil) }
        try readUpToFirstFrame()
    }

    private func readUpToFirstFrame() throws(ImageDecodingError) {
        guard let control = try GIFRecords.nextImage(gif) else { throw .corrupt(reason: "GIF without an image") }
        transparentIndex = control.transparentIndex
        let image = gif.pointee.Image
        frame = (Int(image.Left), Int(image.Top), Int(image.Width), Int(image.Height))
        palette = GIFRecords.palette(gif, transparentIndex: transparentIndex)
        lineIndices = try limits.zeroedBuffer(width: frame.width, rows: 1, elementsPerPixel: 1)
        if image.Interlace { try readInterlacedFrame() }
    }

    private func readInterlacedFrame() throws(ImageDecodingError) {
        let indices = try limits.zeroedBuffer(width: frame.width, rows: frame.height, elementsPerPixel: 1, of: UInt8.self)
        // Rows the data never reaches stay transparent (index 0 when nothing is).
        if transparentIndex > 0 { indices.elements.update(repeating: UInt8(transparentIndex)) }
        let width = frame.width
        for (start, step) in [(0, 8), (4, 8), (2, 4), (1, 2)] {
            for row in stride(from: start, to: frame.height, by: step) {
                let status = DGifGetLine(gif, indices.elements.baseAddress! + row * width, Int32(width))
                if status == GIF_ERROR {
                    if try acceptTruncation() { interlacedIndices = indices; return }
                }
            }
        }
        interlacedIndices = indices
    }

    func readRows(into destination: UnsafeMutablePointer<UInt8>, maximumRows: Int) throws(ImageDecodingError) -> Int {
        guard nextRow < outputSize.height, maximumRows > 0 else { return 0 }
        let y = nextRow
        let channels = outputFormat.bytesPerPixel
        destination.update(repeating: 0, count: outputSize.width * channels)
        let frameRow = y - frame.y
        if frameRow >= 0 && frameRow < frame.height, let lineIndices = lineIndices?.elements {
            if let interlacedIndices = interlacedIndices?.elements {
                for x in 0..<frame.width { lineIndices[x] = interlacedIndices[frameRow * frame.width + x] }
            } else if !isTruncated {
                let status = DGifGetLine(gif, lineIndices.baseAddress, Int32(frame.width))
                if status == GIF_ERROR { _ = try acceptTruncation() }
            }
            if !isTruncated || interlacedIndices != nil {
                for frameX in 0..<frame.width {
                    let x = frame.x + frameX
                    guard x < outputSize.width else { break }
                    let index = Int(lineIndices[frameX])
                    if index == transparentIndex { continue }
                    let color = UInt32(littleEndian: palette[index])
                    let pixel = destination + x * channels
                    pixel[0] = UInt8(truncatingIfNeeded: color)
                    pixel[1] = UInt8(truncatingIfNeeded: color >> 8)
                    pixel[2] = UInt8(truncatingIfNeeded: color >> 16)
                    if channels == 4 { pixel[3] = 255 }
                }
            }
        }
        nextRow += 1
        return 1
    }

    /// True when truncation is allowed (the rest stays transparent); throws otherwise.
    private func acceptTruncation() throws(ImageDecodingError) -> Bool {
        let error = GIFRecords.failure(of: gif)
        guard case .truncated = error, allowsTruncatedData else { throw error }
        isTruncated = true
        return true
    }

}

/// giflib pulls bytes through a callback; this serves them from the file or the memory copy.
final class GIFInput {
    private let stream: ByteStream

    init(_ source: ImageSource) throws(ImageDecodingError) { stream = try source.openStream() }

    /// Why a ranged source stopped early, if it did.
    var readFailure: ImageDecodingError? { stream.readFailure }

    func read(into destination: UnsafeMutablePointer<UInt8>, count: Int) -> Int {
        let bytes = stream.read(count)
        bytes.withUnsafeBufferPointer { destination.update(from: $0.baseAddress!, count: bytes.count) }
        return bytes.count
    }
}

let gifRead: InputFunc = { gif, destination, count in
    guard let gif, let destination, count > 0, let context = gif.pointee.UserData else { return 0 }
    return Int32(Unmanaged<GIFInput>.fromOpaque(context).takeUnretainedValue().read(into: destination, count: Int(count)))
}
