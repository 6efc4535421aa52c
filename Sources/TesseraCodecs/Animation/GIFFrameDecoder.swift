import CGIF
import FoundationEssentials
import TesseraCore

/// Decodes a GIF's frames one after another with giflib, each composed onto the canvas as it
/// streams in: rows go straight from giflib's line decoder to the canvas (an interlaced frame's
/// rows are final as they come, only their order differs), so besides the canvas only a row of
/// indices and a row of colours are held.
final class GIFFrameDecoder: AnimationFrameDecoding {
    private let handle: CHandle<UnsafeMutablePointer<GifFileType>>
    private var gif: UnsafeMutablePointer<GifFileType> { handle.pointer }
    private let input: GIFInput
    private let limits: AllocationLimits
    private let allowsTruncatedData: Bool
    private let durations: [Double]
    private var canvas: AnimationCanvas
    private var frameIndex = 0
    private var ended = false

    init(source: ImageSource, header: GIFHeader, timing: [Double], options: DecodeOptions) throws(ImageDecodingError) {
        input = try GIFInput(source)
        limits = options.limits
        allowsTruncatedData = options.allowsTruncatedData
        durations = timing
        canvas = try AnimationCanvas(size: header.size, limits: options.limits)
        var error: Int32 = 0
        guard let gif = DGifOpen(Unmanaged.passUnretained(input).toOpaque(), gifRead, &error) else {
            throw GIFScanlineReader.failure(error)
        }
        handle = CHandle(gif) { DGifCloseFile($0, nil) }
    }

    var canvasSize: PixelSize { canvas.size }

    func nextFrame() throws(ImageDecodingError) -> AnimationFrame? {
        guard !ended else { return nil }
        do {
            return try readFrame()
        } catch {
            // A file cut short between frames ends the animation with the frames it has.
            guard case .truncated = error, allowsTruncatedData, frameIndex > 0 else { throw error }
            ended = true
            return nil
        }
    }

    private func readFrame() throws(ImageDecodingError) -> AnimationFrame? {
        var disposal = FrameDisposal.keep
        var transparentIndex = -1
        while true {
            var record = UNDEFINED_RECORD_TYPE
            try check(DGifGetRecordType(gif, &record))
            switch record {
            case EXTENSION_RECORD_TYPE:
                var code: Int32 = 0
                var block: UnsafeMutablePointer<GifByteType>?
                try check(DGifGetExtension(gif, &code, &block))
                if code == GRAPHICS_EXT_FUNC_CODE, let block, block[0] >= 4 {
                    disposal = switch (block[1] >> 2) & 0x07 {
                    case 2: .clear
                    case 3: .restorePrevious
                    default: .keep
                    }
                    transparentIndex = block[1] & 1 != 0 ? Int(block[4]) : -1
                }
                while block != nil { try check(DGifGetExtensionNext(gif, &block)) }
            case IMAGE_DESC_RECORD_TYPE:
                try check(DGifGetImageDesc(gif))
                try drawFrame(disposal: disposal, transparentIndex: transparentIndex)
                defer { frameIndex += 1 }
                return AnimationFrame(
                    index: frameIndex, pixels: canvas.pixels,
                    duration: frameIndex < durations.count ? durations[frameIndex] : 0.1)
            default:
                // The trailer, or a record giflib does not know: the animation ends here.
                ended = true
                return nil
            }
        }
    }

    private func drawFrame(disposal: FrameDisposal, transparentIndex: Int) throws(ImageDecodingError) {
        let image = gif.pointee.Image
        let rect = FrameRect(x: Int(image.Left), y: Int(image.Top), width: Int(image.Width), height: Int(image.Height))
        guard rect.width > 0, rect.height > 0 else { throw .corrupt(reason: "GIF frame of zero size") }
        var palette = [UInt8](repeating: 0, count: 256 * 4)
        if let colorMap = image.ColorMap ?? gif.pointee.SColorMap {
            for index in 0..<Int(min(colorMap.pointee.ColorCount, 256)) {
                let color = colorMap.pointee.Colors[index]
                palette[index * 4] = color.Red
                palette[index * 4 + 1] = color.Green
                palette[index * 4 + 2] = color.Blue
                palette[index * 4 + 3] = 255
            }
        } else {
            for index in 0..<256 {
                for channel in 0..<3 { palette[index * 4 + channel] = UInt8(index) }
                palette[index * 4 + 3] = 255
            }
        }
        if (0..<256).contains(transparentIndex) { palette[transparentIndex * 4 + 3] = 0 }
        let visible = canvas.beginFrame(at: rect, disposal: disposal)
        let indices = try limits.zeroedBuffer(width: rect.width, rows: 1, elementsPerPixel: 1, of: UInt8.self)
        let colours = try limits.zeroedBuffer(width: rect.width, rows: 1, elementsPerPixel: 4, of: UInt8.self)
        let rows: [(start: Int, step: Int)] = image.Interlace ? [(0, 8), (4, 8), (2, 4), (1, 2)] : [(0, 1)]
        for (start, step) in rows {
            for frameRow in stride(from: start, to: rect.height, by: step) {
                if DGifGetLine(gif, indices.elements.baseAddress, Int32(rect.width)) == GIF_ERROR {
                    let error = GIFScanlineReader.failure(gif.pointee.Error)
                    // A frame cut short keeps the rows it has, and is the last one.
                    guard case .truncated = error, allowsTruncatedData, frameIndex > 0 || frameRow > 0 else { throw error }
                    ended = true
                    return
                }
                let row = colours.elements.baseAddress!
                for x in 0..<visible.width {
                    let index: Int = Int(indices.elements[x]) &* 4
                    for channel in 0..<4 { row[x &* 4 &+ channel] = palette[index &+ channel] }
                }
                canvas.draw(row: colours.elements.baseAddress!, frameRow: frameRow, in: visible, blending: .over)
            }
        }
    }

    private func check(_ status: Int32) throws(ImageDecodingError) {
        if status == GIF_ERROR { throw GIFScanlineReader.failure(gif.pointee.Error) }
    }
}
