import Testing
import TesseraCore

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

    @Test("covering sizes keep aspect and never exceed the original")
    func scaledToCover() {
        let size = PixelSize(width: 640, height: 480)
        #expect(size.scaledToCover(PixelSize(width: 100, height: 100)) == PixelSize(width: 133, height: 100))  // 133.3: nearest, by the one rounding rule
        #expect(size.scaledToCover(PixelSize(width: 1000, height: 10)) == size)
        #expect(size.scaledToCover(nil) == size)
    }
}
