import CGIF
import FoundationEssentials
import TesseraCore

#if canImport(Glibc)
    import Glibc
#endif

/// Decodes a GIF's first frame with giflib onto the logical screen. A non-interlaced frame streams
/// line by line; an interlaced one is first gathered as palette indices (one byte per pixel).
/// Screen areas the frame leaves uncovered are transparent.
///
/// A frame whose LZW minimum code size giflib refuses (9–11) is decompressed by
/// ``GIFLZWDecoder`` instead. A file that ends inside the frame's data (``GIFHeader/firstFrameIsCut``)
/// is shown as far as it goes, the rows its data does not reach transparent, whatever
/// ``DecodeOptions/allowsTruncatedData`` says: browsers show such GIFs. So is data that breaks off
/// (a code that cannot be) after some rows, with a warning.
final class GIFScanlineReader: ScanlineReader {
    let outputSize: PixelSize
    let outputFormat: PixelFormat
    private(set) var isTruncated = false
    private(set) var warnings: [String] = []
    /// Frame rows decoded so far.
    private var rowsRead = 0

    /// Where the frame's palette indices come from.
    private enum Source {
        case giflib(CHandle<UnsafeMutablePointer<GifFileType>>, GIFInput)
        case lzw(GIFLZWDecoder)
    }
    private let source: Source
    private let allowsTruncatedData: Bool
    private let limits: AllocationLimits
    private var frame = (x: 0, y: 0, width: 0, height: 0)
    private var palette: [UInt32] = []
    private var transparentIndex = -1
    private var interlacedIndices: ZeroedBuffer<UInt8>?
    /// The rows of ``interlacedIndices`` the data reached.
    private var interlacedRowsRead: [Bool] = []
    private var lineIndices: ZeroedBuffer<UInt8>?
    private var nextRow = 0

    init(source imageSource: ImageSource, header: GIFHeader, options: DecodeOptions) throws(ImageDecodingError) {
        allowsTruncatedData = options.allowsTruncatedData || header.firstFrameIsCut
        limits = options.limits
        outputSize = header.size
        outputFormat = header.decodedFormat
        if GIFLZWDecoder.codeSizes.contains(header.firstFrameCodeSize) {
            let stream = try imageSource.openStream()
            stream.seek(to: header.firstFrameDataOffset)
            source = .lzw(GIFLZWDecoder(stream: stream, codeSize: header.firstFrameCodeSize))
            let rect = header.firstFrameRect
            transparentIndex = header.firstFrameTransparentIndex
            try prepare(
                frame: (rect.x, rect.y, rect.width, rect.height), interlaced: header.firstFrameIsInterlaced,
                palette: GIFRecords.palette(colorTable: header.firstFrameColorTable, transparentIndex: transparentIndex))
            return
        }
        let reader = try GIFInput(imageSource)
        var error: Int32 = 0
        guard let gif = DGifOpen(Unmanaged.passUnretained(reader).toOpaque(), gifRead, &error) else {
            throw GIFRecords.failure(error)
        }
        source = .giflib(CHandle(gif) { DGifCloseFile($0, nil) }, reader)
        guard let control = try GIFRecords.nextImage(gif) else { throw .corrupt(reason: "GIF without an image") }
        transparentIndex = control.transparentIndex
        let image = gif.pointee.Image
        try prepare(
            frame: (Int(image.Left), Int(image.Top), Int(image.Width), Int(image.Height)), interlaced: image.Interlace,
            palette: GIFRecords.palette(gif, transparentIndex: transparentIndex))
    }

    private func prepare(frame: (x: Int, y: Int, width: Int, height: Int), interlaced: Bool, palette: [UInt32]) throws(ImageDecodingError) {
        self.frame = frame
        self.palette = palette
        lineIndices = try limits.zeroedBuffer(width: frame.width, rows: 1, elementsPerPixel: 1)
        if interlaced { try readInterlacedFrame() }
    }

    /// The next `count` palette indices of the frame into `line`; nil, or why they could not be read.
    private func nextLine(_ line: UnsafeMutablePointer<UInt8>, count: Int) -> ImageDecodingError? {
        switch source {
        case .giflib(let handle, _):
            DGifGetLine(handle.pointer, line, Int32(count)) == GIF_ERROR ? GIFRecords.failure(of: handle.pointer) : nil
        case .lzw(let decoder):
            decoder.read(into: line, count: count)
        }
    }

    private func readInterlacedFrame() throws(ImageDecodingError) {
        let indices = try limits.zeroedBuffer(width: frame.width, rows: frame.height, elementsPerPixel: 1, of: UInt8.self)
        interlacedIndices = indices
        interlacedRowsRead = Array(repeating: false, count: frame.height)
        let width = frame.width
        for (start, step) in [(0, 8), (4, 8), (2, 4), (1, 2)] {
            for row in stride(from: start, to: frame.height, by: step) {
                if let error = nextLine(indices.elements.baseAddress! + row * width, count: width) {
                    try accept(error)
                    return
                }
                interlacedRowsRead[row] = true
                rowsRead += 1
            }
        }
    }

    func readRows(into destination: UnsafeMutablePointer<UInt8>, maximumRows: Int) throws(ImageDecodingError) -> Int {
        guard nextRow < outputSize.height, maximumRows > 0 else { return 0 }
        let y = nextRow
        let channels = outputFormat.bytesPerPixel
        destination.update(repeating: 0, count: outputSize.width * channels)
        let frameRow = y - frame.y
        if frameRow >= 0 && frameRow < frame.height, let lineIndices = lineIndices?.elements {
            // Rows the data never reached stay transparent.
            var reached = false
            if let interlacedIndices = interlacedIndices?.elements {
                reached = interlacedRowsRead[frameRow]
                for x in 0..<frame.width { lineIndices[x] = interlacedIndices[frameRow * frame.width + x] }
            } else if !isTruncated {
                if let error = nextLine(lineIndices.baseAddress!, count: frame.width) {
                    try accept(error)
                } else {
                    reached = true
                    rowsRead += 1
                }
            }
            if reached {
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

    /// Marks the frame truncated, the rows not read left blank (transparent where there is alpha),
    /// when its data ran out and that is accepted, or when it broke off (an LZW code that cannot be)
    /// after some rows: shown as browsers show it, with a warning. Throws `error` otherwise.
    private func accept(_ error: ImageDecodingError) throws(ImageDecodingError) {
        switch error {
        case .truncated where allowsTruncatedData:
            break
        case .corrupt(let reason) where rowsRead > 0:
            warnings.append(
                "the GIF's image data breaks off after \(rowsRead) of its \(frame.height) rows (\(reason)): what decoded is shown, the rest is blank")
        default:
            throw error
        }
        isTruncated = true
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
