import Foundation
import TesseraCore
import Testing

@testable import TesseraVideo

@Suite("Strip images, sprite sheets and WebVTT tracks")
struct FrameSheetTests {
    @Test("a strip is one row; a sprite sheet wraps at its column count, frames in slot order")
    func layouts() async throws {
        let strip = try await FrameStripGenerator().strip(
            path: VideoFixtures.path("gop1.mp4"), request: FrameStripRequest(frameCount: 5, sizing: .height(36), mode: .exact))
        let row = FrameSheet(strip: strip)
        #expect(row.image.size == PixelSize(width: 5 * 64, height: 36))
        let sprite = FrameSheet(strip: strip, columns: 2)
        #expect(sprite.columns == 2 && sprite.rows == 3)
        #expect(sprite.image.size == PixelSize(width: 128, height: 108))
        for (index, placement) in sprite.placements.enumerated() {
            #expect(placement.x == index % 2 * 64 && placement.y == index / 2 * 36)
            let cell = sprite.image.cropped(x: placement.x, y: placement.y, width: 64, height: 36)!
            #expect(VideoFixtures.index(of: cell) == VideoFixtures.index(of: strip.frames[index].image))
        }
    }

    @Test("the WebVTT track has one cue per slot pointing at its cell")
    func webVTT() async throws {
        let strip = try await FrameStripGenerator().strip(
            path: VideoFixtures.path("gop1.mp4"), request: FrameStripRequest(frameCount: 3, sizing: .height(36)))
        let sheet = FrameSheet(strip: strip, columns: 2)
        let track = WebVTTThumbnails.track(strip: strip, sheet: sheet, imageURL: "sprite.jpg")
        #expect(
            track == """
                WEBVTT

                00:00:00.000 --> 00:00:01.333
                sprite.jpg#xywh=0,0,64,36

                00:00:01.333 --> 00:00:02.667
                sprite.jpg#xywh=64,0,64,36

                00:00:02.667 --> 00:00:04.000
                sprite.jpg#xywh=0,36,64,36

                """)
        #expect(WebVTTThumbnails.timestamp(3725.5) == "01:02:05.500")
    }
}
