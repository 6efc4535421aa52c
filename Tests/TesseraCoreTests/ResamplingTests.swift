import TesseraCore
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Resampling")
struct ResamplingTests {
    func shrink(_ buffer: PixelBuffer, _ factorX: Int, _ factorY: Int) -> PixelBuffer {
        var shrinker = BoxShrinker(inputSize: buffer.size, format: buffer.format, factorX: factorX, factorY: factorY)
        for y in 0..<buffer.height { buffer.withRow(y) { shrinker.append(row: $0) } }
        return shrinker.result()
    }

    @Test("box shrinking averages whole blocks, and the cut-short blocks at the edges average what they have")
    func boxAverages() {
        let gray = PixelBuffer(width: 3, height: 3, format: .gray8, bytes: [0, 10, 100, 20, 30, 200, 50, 50, 7])
        let result = shrink(gray, 2, 2)
        #expect(result.size == PixelSize(width: 2, height: 2))
        #expect(result.bytes == [15, 150, 50, 7])
    }

    @Test("box shrinking weights colour by alpha, so transparent pixels do not tint their neighbours")
    func boxPremultiplies() {
        let rgba = PixelBuffer(width: 2, height: 1, format: .rgba8, bytes: [255, 0, 0, 0, 0, 0, 255, 255])
        #expect(shrink(rgba, 2, 1).bytes == [0, 0, 255, 128])
    }

    @Test("Lanczos keeps a flat image flat at any size")
    func lanczosFlat() {
        let flat = PixelBuffer(width: 50, height: 30, format: .rgb8, bytes: [UInt8](repeating: 77, count: 50 * 30 * 3))
        for size in [PixelSize(width: 7, height: 3), PixelSize(width: 49, height: 31), PixelSize(width: 120, height: 80)] {
            let resized = LanczosResampler.resize(flat, to: size)
            #expect(resized.size == size)
            #expect(resized.bytes.allSatisfy { $0 == 77 })
        }
    }

    @Test("Lanczos shrinking low-passes: a one-pixel checkerboard becomes even gray, not moiré")
    func lanczosLowPass() {
        var bytes = [UInt8]()
        for y in 0..<64 { for x in 0..<64 { bytes.append((x + y) % 2 == 0 ? 255 : 0) } }
        let checker = PixelBuffer(width: 64, height: 64, format: .gray8, bytes: bytes)
        let small = LanczosResampler.resize(checker, to: PixelSize(width: 10, height: 10))
        #expect(small.bytes.allSatisfy { abs(Int($0) - 128) <= 4 })
    }

    @Test("Lanczos filters alpha premultiplied: an invisible red neighbour leaves blue blue")
    func lanczosAlpha() {
        var bytes = [UInt8]()
        for x in 0..<16 { bytes += x < 8 ? [255, 0, 0, 0] : [0, 0, 255, 255] }
        let buffer = PixelBuffer(width: 16, height: 1, format: .rgba8, bytes: bytes)
        let small = LanczosResampler.resize(buffer, to: PixelSize(width: 4, height: 1))
        for x in 0..<4 where small.pixel(x: x, y: 0).last! > 0 {
            #expect(small.pixel(x: x, y: 0).first! <= 2, "x \(x): \(Array(small.pixel(x: x, y: 0)))")
        }
    }

    /// The textbook form in Double: every output pixel the 2-D sum of its window, weights
    /// normalised over the samples inside the image, alpha premultiplied.
    func referenceLanczos(_ input: PixelBuffer, to size: PixelSize) -> [Double] {
        func lanczos3(_ x: Double) -> Double {
            if x == 0 { return 1 }
            guard abs(x) < 3 else { return 0 }
            return 3 * sin(Double.pi * x) * sin(Double.pi * x / 3) / (Double.pi * x * Double.pi * x)
        }
        func taps(_ index: Int, _ inputLength: Int, _ outputLength: Int) -> [(Int, Double)] {
            let scale = Double(inputLength) / Double(outputLength), widen = max(scale, 1)
            let center = (Double(index) + 0.5) * scale
            let window = (0..<inputLength).map { ($0, lanczos3((Double($0) + 0.5 - center) / widen)) }.filter { $0.1 != 0 }
            let total = window.reduce(0) { $0 + $1.1 }
            return window.map { ($0.0, $0.1 / total) }
        }
        let channels = input.format.bytesPerPixel, alpha = input.format.alphaChannelIndex
        var output: [Double] = []
        for y in 0..<size.height {
            let rows = taps(y, input.height, size.height)
            for x in 0..<size.width {
                let columns = taps(x, input.width, size.width)
                var sums = [Double](repeating: 0, count: channels)
                for (row, wy) in rows {
                    for (column, wx) in columns {
                        let pixel = input.pixel(x: column, y: row)
                        let opacity = alpha.map { Double(pixel[pixel.startIndex + $0]) / 255 } ?? 1
                        for channel in 0..<channels {
                            let value = Double(pixel[pixel.startIndex + channel])
                            sums[channel] += wx * wy * (channel == alpha ? value : value * opacity)
                        }
                    }
                }
                if let alpha {
                    let a = min(max(sums[alpha], 0), 255)
                    for channel in 0..<channels where channel != alpha { sums[channel] = a > 0 ? sums[channel] * 255 / a : 0 }
                    sums[alpha] = a
                }
                output += sums.map { min(max($0, 0), 255) }
            }
        }
        return output
    }

    @Test(
        "Lanczos equals the textbook 2-D sum within rounding, for every pixel format, odd widths, shrinking and enlarging",
        arguments: PixelFormat.allCases)
    func lanczosMatchesReference(format: PixelFormat) {
        // Widths that leave every remainder of the eight-byte vector loop and the last pixel's lane.
        var generator = SystemRandomNumberGenerator()
        let channels = format.bytesPerPixel
        for (input, output) in [
            (PixelSize(width: 23, height: 17), PixelSize(width: 13, height: 9)),
            (PixelSize(width: 37, height: 11), PixelSize(width: 29, height: 8)),
            (PixelSize(width: 9, height: 7), PixelSize(width: 21, height: 15)),
            (PixelSize(width: 64, height: 5), PixelSize(width: 3, height: 5)),
        ] {
            var bytes = (0..<input.area * channels).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if let alpha = format.alphaChannelIndex {
                // Some fully transparent and fully opaque pixels among the partial ones.
                for pixel in 0..<input.area where pixel % 5 < 2 { bytes[pixel * channels + alpha] = pixel % 5 == 0 ? 0 : 255 }
            }
            let source = PixelBuffer(width: input.width, height: input.height, format: format, bytes: bytes)
            let resized = LanczosResampler.resize(source, to: output)
            let reference = referenceLanczos(source, to: output)
            #expect(resized.size == output)
            var worst = 0.0
            for (index, value) in resized.bytes.enumerated() {
                // Colour under near-zero alpha is ill-conditioned (divided by a tiny alpha): compare where it shows.
                if let alpha = format.alphaChannelIndex, index % channels != alpha,
                    resized.bytes[index - index % channels + alpha] < 8
                {
                    continue
                }
                worst = max(worst, abs(Double(value) - reference[index]))
            }
            #expect(worst <= 1.0, "\(format) \(input) → \(output): off by \(worst)")
        }
    }

    @Test(
        "a window resized from the input pixels its taps reach is that window of the whole resize, shrinking and enlarging",
        arguments: PixelFormat.allCases)
    func windowsAreCutsOfTheWholeResize(format: PixelFormat) throws {
        var generator = SystemRandomNumberGenerator()
        let input = PixelSize(width: 90, height: 70), channels = format.bytesPerPixel
        let bytes = (0..<input.area * channels).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let source = PixelBuffer(width: input.width, height: input.height, format: format, bytes: bytes)
        for output in [PixelSize(width: 67, height: 52), PixelSize(width: 31, height: 17), PixelSize(width: 130, height: 101)] {
            let whole = LanczosResampler.resize(source, to: output)
            // Corners, edges and the middle; a window one pixel wide.
            for window in [
                PixelRect(x: 0, y: 0, width: 10, height: 8), PixelRect(x: output.width - 7, y: output.height - 5, width: 7, height: 5),
                PixelRect(x: output.width / 3, y: output.height / 4, width: output.width / 3, height: output.height / 2),
                PixelRect(x: output.width / 2, y: 0, width: 1, height: output.height),
            ] {
                let read = LanczosResampler.inputRect(for: window, of: input, to: output)
                #expect(read.intersection(PixelRect(x: 0, y: 0, width: input.width, height: input.height)) == read)
                let block = try #require(source.cropped(to: read))
                let cut = LanczosResampler.resize(block, at: (read.x, read.y), of: input, to: output, window: window)
                #expect(cut == whole.cropped(to: window), "\(format) \(output) \(window) from \(read)")
            }
        }
    }

    @Test("covering sizes keep aspect and never exceed the original")
    func scaledToCover() {
        let size = PixelSize(width: 640, height: 480)
        // 133.3: nearest, by the one rounding rule.
        #expect(size.scaledToCover(PixelSize(width: 100, height: 100)) == PixelSize(width: 133, height: 100))
        #expect(size.scaledToCover(PixelSize(width: 1000, height: 10)) == size)
        #expect(size.scaledToCover(nil) == size)
    }
}
