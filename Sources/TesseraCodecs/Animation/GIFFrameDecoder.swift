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
            throw GIFRecords.failure(error)
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
        guard let control = try GIFRecords.nextImage(gif) else {
            ended = true
            return nil
        }
        let disposal: FrameDisposal =
            switch control.disposal {
            case 2: .clear
            case 3: .restorePrevious
            default: .keep
            }
        try drawFrame(disposal: disposal, transparentIndex: control.transparentIndex)
        defer { frameIndex += 1 }
        return AnimationFrame(
            index: frameIndex, pixels: canvas.pixels, duration: frameIndex < durations.count ? durations[frameIndex] : 0.1)
    }

    /// Decodes the frame giflib has just described straight onto the canvas: a transparent index
    /// leaves what is under it (GIF's only blending), any other index replaces it.
    private func drawFrame(disposal: FrameDisposal, transparentIndex: Int) throws(ImageDecodingError) {
        let image = gif.pointee.Image
        let rect = FrameRect(x: Int(image.Left), y: Int(image.Top), width: Int(image.Width), height: Int(image.Height))
        let palette = GIFRecords.palette(gif, transparentIndex: transparentIndex)
        let visible = canvas.beginFrame(at: rect, disposal: disposal)
        let indices = try limits.zeroedBuffer(width: rect.width, rows: 1, elementsPerPixel: 1, of: UInt8.self)
        let line = indices.elements.baseAddress!
        let rows: [(start: Int, step: Int)] = image.Interlace ? [(0, 8), (4, 8), (2, 4), (1, 2)] : [(0, 1)]
        for (start, step) in rows {
            for frameRow in stride(from: start, to: rect.height, by: step) {
                if DGifGetLine(gif, line, Int32(rect.width)) == GIF_ERROR {
                    let error = GIFRecords.failure(of: gif)
                    // A frame cut short keeps the rows it has, and is the last one.
                    guard case .truncated = error, allowsTruncatedData, frameIndex > 0 || frameRow > 0 else { throw error }
                    ended = true
                    return
                }
                guard frameRow < visible.height else { continue }
                palette.withUnsafeBufferPointer { colours in
                    canvas.withRow(frameRow, in: visible) { row in
                        for x in 0..<visible.width {
                            let index = Int(line[x])
                            if index != transparentIndex { row.storeBytes(of: colours[index], toByteOffset: x &* 4, as: UInt32.self) }
                        }
                    }
                }
            }
        }
    }
}
