import CZlib
import FoundationEssentials
import TesseraCore

/// Decodes an APNG's frames one after another. libpng (Debian's, without the APNG patch) reads
/// only the default image, so each frame's `fdAT` data is rewrapped as a PNG of its own (IHDR with
/// the frame's size, the file's palette, transparency and colour chunks, one IDAT) and decoded by
/// the PNG reader; the frame is then composed onto the canvas with APNG's dispose and blend ops.
///
/// A first pass over the chunks records where each frame's data lies, not the data. Memory: the
/// canvas, the saved area of a frame to be restored, and one frame's compressed bytes, decoded
/// pixels and RGBA copy, each at most the canvas.
final class APNGFrameDecoder: AnimationFrameDecoding {
    private struct Frame {
        var rect: FrameRect
        var disposal: FrameDisposal
        var blending: FrameBlending
        /// Where the frame's zlib data lies in the file: IDAT payloads, or fdAT payloads without
        /// their sequence numbers.
        var ranges: [Range<Int>] = []
    }

    private let stream: ByteStream
    private let header: [UInt8]
    /// The chunks every frame's PNG repeats (PLTE, tRNS and the colour chunks), whole.
    private let sharedChunks: [UInt8]
    private var frames: [Frame] = []
    private let durations: [Double]
    private var canvas: AnimationCanvas
    private let options: DecodeOptions
    private var frameIndex = 0

    init(source: ImageSource, header png: PNGHeader, timing: [Double], options: DecodeOptions) throws(ImageDecodingError) {
        stream = try source.openStream()
        self.options = options
        durations = timing
        canvas = try AnimationCanvas(size: png.size, limits: options.limits)
        stream.seek(to: 8 + 8)
        header = try stream.readExactly(13)
        stream.skip(4)
        var shared = [UInt8]()
        var seenImageData = false
        while let length = try? stream.readBigEndian32(), let type = try? stream.readExactly(4) {
            guard length <= 0x7FFF_FFFF else { throw .corrupt(reason: "a PNG chunk of \(length) bytes") }
            let dataStart = stream.offset
            let name = String(decoding: type, as: UTF8.self)
            switch name {
            case "fcTL":
                let control = try stream.readExactly(min(length, 26))
                guard control.count == 26 else { throw .corrupt(reason: "an APNG fcTL chunk of \(length) bytes") }
                frames.append(try Self.frame(control, index: frames.count, canvas: png.size))
            case "IDAT":
                seenImageData = true
                // The default image is the first frame only when a frame control came before it.
                if frames.count == 1 { frames[0].ranges.append(dataStart..<dataStart + length) }
            case "fdAT":
                guard length >= 4, let last = frames.indices.last else {
                    throw .corrupt(reason: "an APNG fdAT chunk before any frame control")
                }
                frames[last].ranges.append(dataStart + 4..<dataStart + length)
            case "PLTE", "tRNS", "gAMA", "cHRM", "sRGB", "iCCP", "cICP", "sBIT":
                // Copied whole (length, type, data, CRC) into every frame's PNG; metadata-sized only.
                if !seenImageData, let data = stream.readMetadata(length), let crc = try? stream.readExactly(4) {
                    shared += Self.bigEndian(length) + type + data + crc
                }
            default:
                break
            }
            if name == "IEND" { break }
            stream.seek(to: dataStart + length + 4)
        }
        sharedChunks = shared
        // Frames that never got data are dropped, as at the end of a cut file.
        while let last = frames.last, last.ranges.isEmpty { frames.removeLast() }
        guard !frames.isEmpty else { throw .corrupt(reason: "an APNG without frame data") }
    }

    var canvasSize: PixelSize { canvas.size }

    func nextFrame() throws(ImageDecodingError) -> AnimationFrame? {
        guard frameIndex < frames.count else { return nil }
        let frame = frames[frameIndex]
        var decodeOptions = options
        decodeOptions.minimumSize = nil
        decodeOptions.colorManagement = .convertToSRGB
        let pixels = try ImageDecoder(options: decodeOptions).decode(.data(try framePNG(frame))).pixels.converted(to: .rgba8)
        guard pixels.size == PixelSize(width: frame.rect.width, height: frame.rect.height) else {
            throw .corrupt(reason: "APNG frame \(frameIndex + 1) decodes to \(pixels.size), not \(frame.rect.width)×\(frame.rect.height)")
        }
        let visible = canvas.beginFrame(at: frame.rect, disposal: frame.disposal)
        pixels.bytes.withUnsafeBufferPointer { bytes in
            for row in 0..<visible.height {
                canvas.draw(row: bytes.baseAddress! + row * pixels.bytesPerRow, frameRow: row, in: visible, blending: frame.blending)
            }
        }
        defer { frameIndex += 1 }
        return AnimationFrame(
            index: frameIndex, pixels: canvas.pixels, duration: frameIndex < durations.count ? durations[frameIndex] : 0.1)
    }

    /// The frame as a PNG of its own.
    private func framePNG(_ frame: Frame) throws(ImageDecodingError) -> Data {
        let byteCount = frame.ranges.reduce(0) { $0 + $1.count }
        guard byteCount <= 0x7FFF_FFFF else { throw .corrupt(reason: "an APNG frame of \(byteCount) bytes of data") }
        var png = PNGHeader.signature
        png.reserveCapacity(byteCount + sharedChunks.count + 64)
        var ihdr = header
        ihdr.replaceSubrange(0..<8, with: Self.bigEndian(frame.rect.width) + Self.bigEndian(frame.rect.height))
        Self.appendChunk("IHDR", ihdr, to: &png)
        png += sharedChunks
        var data = [UInt8]()
        data.reserveCapacity(byteCount)
        for range in frame.ranges {
            stream.seek(to: range.lowerBound)
            let part = stream.read(range.count)
            data += part
            // A frame cut short keeps what it has; the PNG reader says whether that is allowed.
            if part.count < range.count { break }
        }
        Self.appendChunk("IDAT", data, to: &png)
        Self.appendChunk("IEND", [], to: &png)
        return Data(png)
    }

    /// A frame control chunk's frame, checked against the canvas as the APNG specification asks.
    private static func frame(_ control: [UInt8], index: Int, canvas: PixelSize) throws(ImageDecodingError) -> Frame {
        func value(_ offset: Int) -> Int { control[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
        let rect = FrameRect(x: value(12), y: value(16), width: value(4), height: value(8))
        guard rect.width > 0, rect.height > 0, rect.x + rect.width <= canvas.width, rect.y + rect.height <= canvas.height else {
            throw .corrupt(reason: "APNG frame \(index + 1) of \(rect.width)×\(rect.height) at \(rect.x),\(rect.y) outside its \(canvas) canvas")
        }
        // The first frame's PREVIOUS means BACKGROUND; there is nothing before it to go back to.
        let disposal: FrameDisposal =
            switch control[24] {
            case 1: .clear
            case 2: index == 0 ? .clear : .restorePrevious
            default: .keep
            }
        return Frame(rect: rect, disposal: disposal, blending: control[25] == 1 ? .over : .replace)
    }

    private static func appendChunk(_ type: String, _ data: [UInt8], to png: inout [UInt8]) {
        let body = Array(type.utf8) + data
        let crc = body.withUnsafeBufferPointer { crc32(0, $0.baseAddress, UInt32($0.count)) }
        png += bigEndian(data.count) + body + bigEndian(Int(crc))
    }

    private static func bigEndian(_ value: Int) -> [UInt8] {
        [
            UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8),
            UInt8(truncatingIfNeeded: value),
        ]
    }
}
