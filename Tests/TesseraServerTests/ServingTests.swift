import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import TesseraCodecs
import TesseraCore
import TesseraTiles
import Testing

@testable import TesseraServer

@Suite("Serving pyramids, Deep Zoom, hostile requests and load")
struct ServingTests {
    @Test func largeSourcesAreServedFromAPyramidBuiltOnce() async throws {
        let sandbox = try ServerSandbox()
        defer { sandbox.cleanUp() }
        // 512-px tiles, not the default 256: the pyramid is kept apart by its tile size.
        // No level held whole: every tile is read from the source until the pyramid is there.
        let server = try sandbox.server {
            $0.smallSourcePixelLimit = 0; $0.levelPixelLimit = 0; $0.tileSize = 512
        }
        let source = try await server.service.resolve("big.png")
        let pattern = ServerSandbox.pattern(width: 1300, height: 1000)
        try await server.test { client in
            // Many requests for one source at once are answered from the source and start one build.
            try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for tile in ["0,0,512,512/512,512", "512,0,512,512/512,512", "1024,0,276,512/276,512"] {
                    group.addTask { try await client.execute(uri: "/iiif/3/big.png/\(tile)/0/default.jpg", method: .get).status }
                }
                for try await status in group { #expect(status == .ok) }
            }
            await server.service.builds.finished()
            let cacheRoot = sandbox.cache + "/" + source.identity.description
            #expect(FileManager.default.fileExists(atPath: cacheRoot + "/iiif-512/info.json"))
            // An aligned tile is the stored tile's bytes, at every scale factor, whichever size form asks for it.
            for (request, stored) in [
                ("512,512,512,488/512,488", "512,512,512,488/512,488"), ("0,0,1024,1000/512,", "0,0,1024,1000/512,500"),
                ("full/325,250", "0,0,1300,1000/325,250"), ("1024,0,276,1000/138,500", "1024,0,276,1000/138,500"),
            ] {
                try await client.execute(uri: "/iiif/3/big.png/\(request)/0/default.jpg", method: .get) { response in
                    #expect(response.status == .ok)
                    let bytes = try Data(contentsOf: URL(fileURLWithPath: cacheRoot + "/iiif-512/\(stored)/0/default.jpg"))
                    #expect(Data(response.body.readableBytesView) == bytes, "\(request)")
                }
            }
            // An unaligned region is composed from tiles: close to the source (JPEG tiles at quality 75).
            try await client.execute(uri: "/iiif/3/big.png/300,200,600,500/max/0/default.png", method: .get) { response in
                let pixels = try decodePixels(response.body).converted(to: .rgb8)
                let reference = try #require(pattern.cropped(x: 300, y: 200, width: 600, height: 500))
                #expect(pixels.size == reference.size)
                let meanError = Double(zip(pixels.bytes, reference.bytes).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(pixels.bytes.count)
                #expect(meanError < 6)
            }
        }
        let metrics = String(decoding: server.service.metrics.exposition(queuedJobs: 0), as: UTF8.self)
        #expect(metrics.contains("tessera_pyramid_builds_total 1"))
    }

    @Test func deepZoomMatchesTheTileCommandsPyramid() async throws {
        let sandbox = try ServerSandbox()
        defer { sandbox.cleanUp() }
        // What `tessera tile --layout dzi` writes: the same builder with its defaults.
        let reference = sandbox.base + "/reference"
        _ = try await PyramidBuilder.build(
            .file(sandbox.root + "/big.png"), name: "big", outputDirectory: reference,
            options: PyramidOptions(layout: .deepZoom()))
        try await sandbox.server().test { client in
            try await client.execute(uri: "/dzi/big.png.dzi", method: .get) { response in
                #expect(response.status == .ok)
                let expected = try Data(contentsOf: URL(fileURLWithPath: reference + "/big.dzi"))
                #expect(Data(response.body.readableBytesView) == expected)
            }
            for tile in ["11/0_0.jpeg", "11/5_3.jpeg", "10/2_1.jpeg", "0/0_0.jpeg", "5/0_0.jpeg"] {
                try await client.execute(uri: "/dzi/big.png_files/\(tile)", method: .get) { response in
                    #expect(response.status == .ok, "\(tile)")
                    #expect(response.headers[.contentType] == "image/jpeg")
                    let expected = try Data(contentsOf: URL(fileURLWithPath: reference + "/big_files/" + tile))
                    #expect(Data(response.body.readableBytesView) == expected, "\(tile)")
                }
            }
            for tile in ["12/0_0.jpeg", "11/6_0.jpeg", "11/0_4.jpeg", "-1/0_0.jpeg", "11/0_0.png", "11/x_0.jpeg"] {
                try await client.execute(uri: "/dzi/big.png_files/\(tile)", method: .get) { #expect($0.status == .notFound, "\(tile)") }
            }
        }
    }

    @Test func identifiersNeverEscapeTheRoot() async throws {
        let sandbox = try ServerSandbox()
        defer { sandbox.cleanUp() }
        try "secret".write(toFile: sandbox.base + "/secret.png", atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(atPath: ServerSandbox.fixtures + "/photo-400x300.png", toPath: sandbox.base + "/outside.png")
        try FileManager.default.createSymbolicLink(atPath: sandbox.root + "/link.png", withDestinationPath: sandbox.base + "/outside.png")
        try FileManager.default.copyItem(atPath: ServerSandbox.fixtures + "/photo-400x300.png", toPath: sandbox.root + "/.hidden.png")
        let hostile = [
            "..%2Fsecret.png", "%2e%2e%2Fsecret.png", "%2E%2e%2fsecret.png", "%252e%252e%252Fsecret.png", "..%252Fsecret.png",
            "sub%20dir%2F..%2F..%2Fsecret.png", "%2Fetc%2Fpasswd",
            "%2F" + sandbox.base.dropFirst().replacingOccurrences(of: "/", with: "%2F") + "%2Fsecret.png",
            "sub%20dir%5C..%5C..%5Csecret.png", "photo-400x300.png%00.jpg", ".hidden.png", "sub%20dir%2F%2Fnested.png", "%2e",
            "link.png", "%", "%zz", "%C0%AE%C0%AE%2Fsecret.png",
        ]
        try await sandbox.server().test { client in
            for identifier in hostile {
                for path in ["info.json", "full/max/0/default.jpg"] {
                    try await client.execute(uri: "/iiif/3/\(identifier)/\(path)", method: .get) { response in
                        #expect([.badRequest, .notFound].contains(response.status), "\(identifier)")
                        let body = String(buffer: response.body)
                        #expect(!body.contains(sandbox.base), "\(identifier): \(body)")
                        #expect(!body.contains("secret\n") && body.count < 400)
                    }
                }
                try await client.execute(uri: "/dzi/\(identifier).dzi", method: .get) { #expect([.badRequest, .notFound].contains($0.status)) }
            }
            // The nested file itself is fine.
            try await client.execute(uri: "/iiif/3/sub%20dir%2Fnested.png/info.json", method: .get) { #expect($0.status == .ok) }
        }
    }

    @Test func aBadFileFailsOnlyItsOwnRequests() async throws {
        let sandbox = try ServerSandbox()
        defer { sandbox.cleanUp() }
        try ImageEncoder.encode(ServerSandbox.pattern(width: 400, height: 300), as: .webp(quality: 80))
            .write(to: URL(fileURLWithPath: sandbox.root + "/decoded-whole.webp"))
        // A TIFF whose first directory lies past its end: libtiff's message names the file's path.
        try Data([0x49, 0x49, 0x2A, 0x00, 0x00, 0xFF, 0xFF, 0x0F] + [UInt8](repeating: 0, count: 100))
            .write(to: URL(fileURLWithPath: sandbox.root + "/seek-past-end.tif"))
        try await sandbox.server {
            $0.sourcePixelLimit = 100_000; $0.streamedRowPixelLimit = 1000
        }.test { client in
            for name in ["broken-truncated.jpg", "broken-random.jpg", "seek-past-end.tif"] {
                try await client.execute(uri: "/iiif/3/\(name)/full/max/0/default.jpg", method: .get) { response in
                    #expect(response.status.code >= 400 && response.status.code < 600, "\(name)")
                    let body = String(buffer: response.body)
                    #expect(body.split(separator: "\n").count == 1 && !body.contains(sandbox.root) && !body.contains("/tmp"), "\(body)")
                }
            }
            // A source read by rows is limited by its rows: 400, naming the limit.
            try await client.execute(uri: "/iiif/3/big.png/info.json", method: .get) { response in
                #expect(response.status == .badRequest)
                #expect(String(buffer: response.body).contains("over the limit of 1000"))
            }
            // One decoded whole (WebP) by its pixels: 400, naming the limit.
            try await client.execute(uri: "/iiif/3/decoded-whole.webp/info.json", method: .get) { response in
                #expect(response.status == .badRequest)
                #expect(String(buffer: response.body).contains("100000"))
            }
            try await client.execute(uri: "/iiif/3/photo-400x300.png/full/max/0/default.jpg", method: .get) { #expect($0.status == .ok) }
        }
    }

    @Test func aFullQueueAnswers503WithRetryAfter() async throws {
        let sandbox = try ServerSandbox()
        defer { sandbox.cleanUp() }
        try await sandbox.server { $0.queueLimit = 0 }.test { client in
            try await client.execute(uri: "/iiif/3/photo-400x300.png/full/max/0/default.jpg", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(response.headers[.retryAfter] == "1")
            }
            try await client.execute(uri: "/health", method: .get) { #expect($0.status == .ok) }
        }
        // Flooded, with a worker and one queue slot: every request is answered, some with 503, none otherwise.
        try await sandbox.server {
            $0.queueLimit = 1; $0.workerCount = 1
        }.test { client in
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for width in 100..<124 {
                    group.addTask { try await client.execute(uri: "/iiif/3/big.png/full/\(width),/0/default.png", method: .get).status }
                }
                return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            #expect(statuses.count == 24)
            #expect(statuses.allSatisfy { $0 == .ok || $0 == .serviceUnavailable })
        }
    }

    @Test func healthAndMetrics() async throws {
        let sandbox = try ServerSandbox()
        defer { sandbox.cleanUp() }
        try await sandbox.server().test { client in
            try await client.execute(uri: "/iiif/3/photo-400x300.png/full/50,/0/default.jpg", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/iiif/3/photo-400x300.png/full/50,/0/default.jpg", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/health", method: .get) { response in
                let health = try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any]
                #expect(health?["status"] as? String == "ok")
                #expect(health?["version"] as? String == tesseraVersion)
                #expect(health?["uptime"] is Int)
            }
            try await client.execute(uri: "/metrics", method: .get) { response in
                let text = String(buffer: response.body)
                #expect(text.contains("tessera_http_requests_total{route=\"iiif_image\",status=\"200\"} 2"))
                #expect(text.contains("tessera_cache_lookups_total{tier=\"response\",result=\"hit\"} 1"))
                #expect(text.contains("tessera_http_request_duration_seconds_bucket{route=\"iiif_image\""))
                #expect(text.contains("tessera_work_queue_depth_jobs 0"))
                #expect(text.contains("tessera_pyramid_builds_total 0"))
            }
        }
    }

    @Test func leftoversOfAnInterruptedBuildAreNeverServedAndAreRemoved() async throws {
        let sandbox = try ServerSandbox()
        defer { sandbox.cleanUp() }
        let identity = try #require(FileIdentity(path: sandbox.root + "/big.png"))
        // What a build killed mid-way leaves: a staging directory with some tiles and no descriptor.
        let staging = sandbox.cache + "/" + identity.description + "/.tessera-iiif-killed/iiif/0,0,512,512/512,512/0"
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: true)
        try Data([0xFF, 0xD8]).write(to: URL(fileURLWithPath: staging + "/default.jpg"))
        let server = try sandbox.server { $0.smallSourcePixelLimit = 0 }
        #expect(!FileManager.default.fileExists(atPath: sandbox.cache + "/" + identity.description + "/.tessera-iiif-killed"))
        try await server.test { client in
            try await client.execute(uri: "/iiif/3/big.png/0,0,512,512/512,512/0/default.jpg", method: .get) { response in
                #expect(response.status == .ok)
                let decoded = try decodePixels(response.body)
                #expect(decoded.size == PixelSize(width: 512, height: 512))
            }
        }
    }

    @Test func wholePyramidsAreEvictedLeastRecentlyUsedFirst() async throws {
        let sandbox = try ServerSandbox()
        defer { sandbox.cleanUp() }
        for index in 0..<3 {
            try ImageEncoder.encode(ServerSandbox.pattern(width: 900 + index, height: 700), as: .png())
                .write(to: URL(fileURLWithPath: sandbox.root + "/p\(index).png"))
        }
        // One pyramid's size, then a server with room for about two of them.
        let measuring = try sandbox.server {
            $0.smallSourcePixelLimit = 0; $0.levelPixelLimit = 0
        }
        try await measuring.test { client in
            try await client.execute(uri: "/iiif/3/p0.png/0,0,512,512/512,512/0/default.jpg", method: .get) { #expect($0.status == .ok) }
            await measuring.service.builds.finished()
        }
        let limit = measuring.service.pyramids.totalBytes * 5 / 2
        try FileManager.default.removeItem(atPath: sandbox.cache)
        let server = try sandbox.server {
            $0.smallSourcePixelLimit = 0; $0.levelPixelLimit = 0; $0.cacheByteLimit = limit
        }
        try await server.test { client in
            // The third request is for another tile: a repeat would come from the response cache and
            // not touch the pyramid at all. Each first request starts a build, finished before the next.
            for (index, tile) in [(0, "0,0,512,512/512,512"), (1, "0,0,512,512/512,512"), (0, "512,0,388,512/388,512"), (2, "0,0,512,512/512,512")] {
                try await client.execute(uri: "/iiif/3/p\(index).png/\(tile)/0/default.jpg", method: .get) { #expect($0.status == .ok) }
                await server.service.builds.finished()
            }
        }
        let kept = try FileManager.default.contentsOfDirectory(atPath: sandbox.cache).filter { !$0.hasPrefix(".") }
        let identity = { (index: Int) in FileIdentity(path: sandbox.root + "/p\(index).png")!.description }
        #expect(server.service.pyramids.totalBytes <= limit)
        #expect(kept.count == 2)
        #expect(kept.contains(identity(2)))
        #expect(!kept.contains(identity(1)), "p1 was used least recently")
    }
}
