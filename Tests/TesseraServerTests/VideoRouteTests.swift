import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import TesseraCodecs
import TesseraCore
import TesseraVideo
import Testing

@testable import TesseraServer

@Suite("Video API")
struct VideoRouteTests {
    /// gop1.mp4: 4 s at 30 fps, 256×144, a keyframe every second, AAC audio.
    static func sandbox() throws -> ServerSandbox {
        let sandbox = try ServerSandbox()
        try FileManager.default.copyItem(atPath: ServerSandbox.fixtures + "/video/gop1.mp4", toPath: sandbox.root + "/sub dir/clip.mp4")
        return sandbox
    }

    @Test func theFileIsServedWithRangesAndValidators() async throws {
        let sandbox = try Self.sandbox()
        defer { sandbox.cleanUp() }
        let file = try Data(contentsOf: URL(fileURLWithPath: sandbox.root + "/sub dir/clip.mp4"))
        try await sandbox.server().test { client in
            let tag = try await client.execute(uri: "/video/sub%20dir%2Fclip.mp4", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "video/mp4")
                #expect(response.headers[.acceptRanges] == "bytes")
                #expect(Data(response.body.readableBytesView) == file)
                return try #require(response.headers[.eTag])
            }
            try await client.execute(uri: "/video/sub%20dir%2Fclip.mp4", method: .get, headers: [.range: "bytes=100-199"]) { response in
                #expect(response.status == .partialContent)
                #expect(response.headers[.contentRange] == "bytes 100-199/\(file.count)")
                #expect(Data(response.body.readableBytesView) == file[100...199])
            }
            try await client.execute(uri: "/video/sub%20dir%2Fclip.mp4", method: .get, headers: [.range: "bytes=-10"]) { response in
                #expect(Data(response.body.readableBytesView) == file.suffix(10))
            }
            try await client.execute(uri: "/video/sub%20dir%2Fclip.mp4", method: .get, headers: [.range: "bytes=\(file.count)-"]) { response in
                #expect(response.status == .rangeNotSatisfiable)
                #expect(response.headers[.contentRange] == "bytes */\(file.count)")
            }
            // A range for another version of the file gets the whole (current) file.
            try await client.execute(
                uri: "/video/sub%20dir%2Fclip.mp4", method: .get,
                headers: [.range: "bytes=0-9", .ifRange: "\"stale\""]
            ) { #expect($0.status == .ok) }
            try await client.execute(uri: "/video/sub%20dir%2Fclip.mp4", method: .get, headers: [.ifNoneMatch: tag]) {
                #expect($0.status == .notModified)
            }
            try await client.execute(uri: "/video/sub%20dir%2Fclip.mp4", method: .head) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentLength] == String(file.count))
            }
            // Images are not videos (ffmpeg would open them as one-frame videos), nor is anything else.
            try "text".write(toFile: sandbox.root + "/notes.txt", atomically: true, encoding: .utf8)
            for path in ["/video/big.png", "/video/notes.txt", "/video/missing.mp4"] {
                try await client.execute(uri: path, method: .get) { #expect($0.status == .notFound, "\(path)") }
            }
            try await client.execute(uri: "/video/..%2Fx.mp4", method: .get) { #expect($0.status == .badRequest) }
            // Bytes ffmpeg takes for a broken stream: the server's problem, said without a path.
            try await client.execute(uri: "/video/broken-random.jpg", method: .get) { response in
                #expect(response.status == .internalServerError)
                #expect(!String(buffer: response.body).contains(sandbox.root))
            }
        }
    }

    struct Info: Decodable {
        let id: String
        let name: String
        let duration: Double
        let frameRate: Double
        let frameCount: Int?
        let width: Int
        let height: Int
        let codec: String
        let hasAudio: Bool
        let keyframeTimes: [Double]
    }

    @Test func infoSpriteAndTrackDescribeTheSameSlots() async throws {
        let sandbox = try Self.sandbox()
        defer { sandbox.cleanUp() }
        try await sandbox.server().test { client in
            try await client.execute(uri: "/video/sub%20dir%2Fclip.mp4/info.json", method: .get) { response in
                let info = try JSONDecoder().decode(Info.self, from: Data(response.body.readableBytesView))
                #expect((info.id, info.name, info.codec, info.hasAudio) == ("sub%20dir%2Fclip.mp4", "clip.mp4", "h264", true))
                #expect((info.duration, info.frameRate, info.frameCount, info.width, info.height) == (4, 30, 120, 256, 144))
                #expect(info.keyframeTimes == [0, 1, 2, 3])
            }
            for mode in ["keyframe", "fast", "exact"] {
                try await client.execute(uri: "/video/sub%20dir%2Fclip.mp4/sprite.jpg?frames=8&height=36&mode=\(mode)", method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.contentType] == "image/jpeg")
                    // Eight 64×36 frames (16:9) in one row.
                    let size = try decodePixels(response.body).size
                    #expect(size == PixelSize(width: 8 * 64, height: 36))
                }
            }
            try await client.execute(uri: "/video/sub%20dir%2Fclip.mp4/thumbnails.vtt?frames=4&height=36&mode=keyframe", method: .get) { response in
                #expect(response.headers[.contentType] == "text/vtt; charset=utf-8")
                let text = String(buffer: response.body)
                #expect(text.hasPrefix("WEBVTT\n"))
                #expect(
                    text.contains(
                        "00:00:01.000 --> 00:00:02.000\n/video/sub%20dir%2Fclip.mp4/sprite.jpg?frames=4&height=36&mode=keyframe#xywh=64,0,64,36\n"))
            }
            for query in ["frames=0", "frames=201", "height=8", "height=1000", "mode=slow", "frames=x"] {
                try await client.execute(uri: "/video/sub%20dir%2Fclip.mp4/sprite.jpg?" + query, method: .get) { response in
                    #expect(response.status == .badRequest, "\(query)")
                    #expect(!String(buffer: response.body).contains(sandbox.root))
                }
            }
        }
    }

    struct Status: Decodable {
        struct Result: Decodable { let start: Double; let end: Double; let duration: Double; let requestedStart: Double }
        let id: String
        let state: String
        let progress: Double
        let error: String?
        let result: Result?
        let download: String?
    }

    @Test func aTrimJobExportsTheClipForDownload() async throws {
        let sandbox = try Self.sandbox()
        defer { sandbox.cleanUp() }
        try await sandbox.server().test { client in
            for (exact, expectedStart) in [(false, 1.0), (true, 1.2)] {
                let url = try await client.execute(
                    uri: "/video/sub%20dir%2Fclip.mp4/trim", method: .post,
                    body: ByteBuffer(string: "{\"from\": 1.2, \"to\": 2.5, \"exact\": \(exact)}")
                ) { response in
                    #expect(response.status == .accepted)
                    return try #require(response.headers[.location])
                }
                var status: Status
                var polls = 0
                repeat {
                    try await Task.sleep(for: .milliseconds(50))
                    status = try await client.execute(uri: url, method: .get) {
                        try JSONDecoder().decode(Status.self, from: Data($0.body.readableBytesView))
                    }
                    polls += 1
                } while (status.state == "queued" || status.state == "running") && polls < 1200
                #expect(status.state == "done", "\(status.error ?? "")")
                let result = try #require(status.result)
                // Stream copy starts at the keyframe at or before 1.2 s; exact starts on the frame asked for.
                #expect(abs(result.start - expectedStart) < 1.0 / 30 && abs(result.end - 2.5) < 1.0 / 30)
                #expect(status.progress == 1 && status.download == url + "/result")
                let clip = try await client.execute(uri: url + "/result", method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.contentDisposition] == "attachment; filename=\"clip-trim.mp4\"")
                    return Data(response.body.readableBytesView)
                }
                let path = sandbox.base + "/downloaded-\(exact).mp4"
                try clip.write(to: URL(fileURLWithPath: path))
                let probed = try await VideoAsset.load(path: path).duration
                #expect(abs(probed - result.duration) <= 1.0 / 30 + 1e-6)
            }
            for body in ["{\"from\": 3, \"to\": 9}", "{\"from\": 2, \"to\": 1}", "not json", "{\"from\": -1, \"to\": 1}"] {
                try await client.execute(uri: "/video/sub%20dir%2Fclip.mp4/trim", method: .post, body: ByteBuffer(string: body)) {
                    #expect($0.status == .badRequest, "\(body)")
                }
            }
            try await client.execute(uri: "/jobs/0123456789abcdef0123456789abcdef", method: .get) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/jobs/..%2F..%2Fetc", method: .get) { #expect($0.status == .notFound) }
        }
    }

    @Test func byteRangesFollowRFC9110() {
        #expect(ByteRange(header: nil, fileSize: 100) == .whole)
        #expect(ByteRange(header: "bytes=0-49", fileSize: 100) == .part(0...49))
        #expect(ByteRange(header: "bytes=50-", fileSize: 100) == .part(50...99))
        #expect(ByteRange(header: "bytes=90-200", fileSize: 100) == .part(90...99))
        #expect(ByteRange(header: "bytes=-30", fileSize: 100) == .part(70...99))
        #expect(ByteRange(header: "bytes=-300", fileSize: 100) == .part(0...99))
        #expect(ByteRange(header: "bytes=100-", fileSize: 100) == .unsatisfiable)
        #expect(ByteRange(header: "bytes=-0", fileSize: 100) == .whole)
        #expect(ByteRange(header: "bytes=5-2", fileSize: 100) == .whole)
        #expect(ByteRange(header: "bytes=0-1,5-6", fileSize: 100) == .whole)
        #expect(ByteRange(header: "items=0-1", fileSize: 100) == .whole)
        #expect(ByteRange(header: "bytes=x-1", fileSize: 100) == .whole)
        #expect(ByteRange(header: "bytes=0-", fileSize: 0) == .unsatisfiable)
    }
}
