import TesseraCore
import Testing

@testable import TesseraPipeline

@Suite("Processors")
struct ProcessorTests {
    @Test("crop cuts the requested rectangle and refuses one outside the image")
    func crop() throws {
        let image = PixelBuffer(width: 4, height: 3, format: .gray8, bytes: Array(0..<12))
        #expect(try CropProcessor(x: 1, y: 1, width: 2, height: 2).process(image).bytes == [5, 6, 9, 10])
        #expect(throws: ImagePipelineError.self) { try CropProcessor(x: 3, y: 0, width: 2, height: 1).process(image) }
    }

    @Test("resize fits inside the box, or fills and crops it")
    func resize() throws {
        let image = PixelBuffer(width: 400, height: 200, format: .rgb8)
        #expect(try ResizeProcessor(size: PixelSize(width: 100, height: 100)).process(image).size == PixelSize(width: 100, height: 50))
        #expect(
            try ResizeProcessor(size: PixelSize(width: 100, height: 100), mode: .centerCrop).process(image).size == PixelSize(width: 100, height: 100)
        )
    }

    @Test("blur spreads a single bright pixel symmetrically and keeps total brightness")
    func blur() throws {
        var bytes = [UInt8](repeating: 0, count: 41 * 41)
        bytes[20 * 41 + 20] = 255
        let dot = PixelBuffer(width: 41, height: 41, format: .gray8, bytes: bytes)
        var bright = dot
        bright.bytes = bright.bytes.map { $0 == 255 ? 255 : 100 }
        let blurred = try GaussianBlurProcessor(radius: 3).process(bright)
        #expect(blurred.pixel(x: 20, y: 20).first! < 255)
        #expect(blurred.pixel(x: 17, y: 20) == blurred.pixel(x: 23, y: 20))
        #expect(blurred.pixel(x: 20, y: 17) == blurred.pixel(x: 20, y: 23))
        #expect(blurred.pixel(x: 0, y: 0).first! == 100)
        #expect(GaussianBlurProcessor(radius: 3).identifier != GaussianBlurProcessor(radius: 4).identifier)
    }
}
