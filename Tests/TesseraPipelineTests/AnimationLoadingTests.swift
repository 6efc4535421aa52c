import Foundation
import TesseraCodecs
import TesseraCore
import Testing

@testable import TesseraPipeline

@Suite("Animations through the pipeline", .serialized)
struct AnimationLoadingTests {
    let server: TestHTTPServer
    let directory = temporaryDirectory()
    let gif = try! Data(contentsOf: fixtures.appendingPathComponent("animation/gif-dispose-previous.gif"))

    init() throws {
        server = try TestHTTPServer()
        server.route("/anim.gif", .init(body: gif, headers: [("Content-Type", "image/gif")]))
    }

    /// Frames come at the request's size, each kept in the memory cache at its own cost; a frame
    /// asked for again is a cache hit, and one evicted is decoded again.
    @Test func framesAreDecodedOnDemandAndCachedFrameByFrame() async throws {
        defer {
            server.shutdown()
            try? FileManager.default.removeItem(at: directory)
        }
        let memory = MemoryImageCache(costLimit: 64 << 20)
        let pipeline = makePipeline(directory: directory, memory: memory)
        let request = ImageRequest(url: server.url("/anim.gif"), target: .maxPixelSize(24))
        let animation = try await pipeline.animation(for: request)
        #expect(animation.frameCount == 4)
        #expect(animation.frameSize == PixelSize(width: 24, height: 20))
        #expect(animation.timing?.loopCount == 4)
        #expect(memory.count == 0)  // nothing decoded yet

        let third = try await animation.frame(at: 2)
        // Decoding frame 2 composed 0, 1 and 2, and kept each: three frames' cost, no more.
        #expect(memory.count == 3)
        #expect(memory.totalCost == 3 * third.byteCount)
        let expected = try Thumbnailer().thumbnail(.data(gif), options: ThumbnailOptions(maxPixelSize: 24), frameIndex: 2)
        #expect(third == expected.pixels.converted(to: .rgba8))

        // Frame 0 comes from the cache; after it is evicted it is decoded again from the start.
        #expect(try await animation.frame(at: 0) == memory.image(for: animation.cacheKey(frame: 0)))
        memory.removeAll()
        let first = try await animation.frame(at: 0)
        #expect(first.size == animation.frameSize && memory.count == 1)

        // The bytes came once, through the disk cache, like an image's.
        _ = try await pipeline.animation(for: request)
        #expect(server.requestCount("/anim.gif") == 1)
        await #expect(throws: ImagePipelineError.self) { try await animation.frame(at: 4) }
    }
}
