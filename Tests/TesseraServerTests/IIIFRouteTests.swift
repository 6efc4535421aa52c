import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import TesseraCodecs
import TesseraCore
import TesseraTestSupport
import Testing

@testable import TesseraServer

@Suite("IIIF routes")
struct IIIFRouteTests {
    /// The photo as the library decodes it, the reference for every pixel check.
    let photo = try! ImageDecoder().decode(.file(ServerSandbox.fixtures + "/photo-400x300.png")).pixels

    @Test func infoJSONDescribesTheImageWithItsEncodedIdentifier() async throws {
        let sandbox = try ServerSandbox()
        defer { sandbox.cleanUp() }
        try await sandbox.server().test { client in
            try await client.execute(uri: "/iiif/3/sub%20dir%2Fnested.png/info.json", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/ld+json;profile=\"http://iiif.io/api/image/3/context.json\"")
                #expect(response.headers[.accessControlAllowOrigin] == "*")
                #expect(response.headers[.vary] == "Accept")
                #expect(response.headers[.eTag]?.hasPrefix("\"") == true)
                let info = try JSONDecoder().decode(IIIFInfoDocument.self, from: Data(response.body.readableBytesView))
                #expect(info.id == "http://localhost/iiif/3/sub%20dir%2Fnested.png")
                #expect(info.context == "http://iiif.io/api/image/3/context.json")
                #expect((info.type, info.profile, info.width, info.height) == ("ImageService3", "level2", 400, 300))
                // A scale factor for every size listed, the coarsest size at the largest factor.
                #expect(info.tiles?.first?.scaleFactors == [1, 2, 4, 8])
                #expect(info.maxArea == 40_000_000)
                #expect(info.sizes?.map(\.width) == [50, 100, 200, 400])
                // Every size info.json lists is served at exactly that size.
                for size in info.sizes ?? [] {
                    let listed = try await client.execute(
                        uri: "/iiif/3/photo-400x300.png/full/\(size.width),\(size.height)/0/default.png", method: .get)
                    #expect(listed.status == .ok)
                    #expect(try decodePixels(listed.body).size == PixelSize(width: size.width, height: size.height))
                }
            }
            try await client.execute(uri: "/iiif/3/photo-400x300.png/info.json", method: .get, headers: [.accept: "application/json"]) { response in
                #expect(response.headers[.contentType] == "application/json")
            }
        }
    }

    @Test func theBaseURIRedirectsToInfoJSON() async throws {
        let sandbox = try ServerSandbox()
        defer { sandbox.cleanUp() }
        try await sandbox.server().test { client in
            try await client.execute(uri: "/iiif/3/photo-400x300.png", method: .get) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == "http://localhost/iiif/3/photo-400x300.png/info.json")
            }
            try await client.execute(uri: "/iiif/3/missing.png", method: .get) { #expect($0.status == .notFound) }
        }
    }

    @Test func regionsAndSizesMatchTheLibrarysOwnDecode() async throws {
        let sandbox = try ServerSandbox()
        defer { sandbox.cleanUp() }
        let photo = self.photo
        try await sandbox.server().test { client in
            // A pixel region at full size: exactly the decoded pixels (PNG is lossless).
            try await client.execute(uri: "/iiif/3/photo-400x300.png/100,50,200,100/max/0/default.png", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/png")
                let pixels = try decodePixels(response.body).converted(to: photo.format)
                #expect(pixels == photo.cropped(x: 100, y: 50, width: 200, height: 100))
            }
            // A region reaching past the edge is clipped to the image.
            try await client.execute(uri: "/iiif/3/photo-400x300.png/300,200,500,500/max/0/default.png", method: .get) { response in
                let decoded = try decodePixels(response.body)
                #expect(decoded.size == PixelSize(width: 100, height: 100))
            }
            // square, pct regions and every size form, by output size.
            let expected: [(String, PixelSize)] = [
                ("square/max", PixelSize(width: 300, height: 300)),
                ("pct:25,50,50,50/max", PixelSize(width: 200, height: 150)),
                ("full/200,", PixelSize(width: 200, height: 150)),
                ("full/,100", PixelSize(width: 133, height: 100)),
                ("full/pct:50", PixelSize(width: 200, height: 150)),
                ("full/120,80", PixelSize(width: 120, height: 80)),
                ("full/!100,100", PixelSize(width: 100, height: 75)),
                ("full/^800,", PixelSize(width: 800, height: 600)),
                ("full/^pct:150", PixelSize(width: 600, height: 450)),
            ]
            for (path, size) in expected {
                try await client.execute(uri: "/iiif/3/photo-400x300.png/\(path)/0/default.jpg", method: .get) { response in
                    #expect(response.status == .ok, "\(path)")
                    let decoded = try decodePixels(response.body)
                    #expect(decoded.size == size, "\(path)")
                }
            }
            // A downscale is close to the library's own resampling of the same region.
            try await client.execute(uri: "/iiif/3/photo-400x300.png/full/200,150/0/default.png", method: .get) { response in
                let reference = LanczosResampler.resize(photo, to: PixelSize(width: 200, height: 150))
                let decoded = try decodePixels(response.body).converted(to: photo.format)
                #expect(maximumDifference(decoded, reference) <= 12)
            }
            // Larger than the region without ^, or above maxArea: 400 naming the limit.
            // A format Tessera does not write: 400, as IIIF 3.0 §4.5 says.
            for path in ["full/800,", "full/pct:150", "full/max/0/default.gif", "full/^100000,"] {
                let uri = path.hasSuffix(".gif") ? "/iiif/3/photo-400x300.png/\(path)" : "/iiif/3/photo-400x300.png/\(path)/0/default.jpg"
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .badRequest, "\(path)")
                }
            }
            try await client.execute(uri: "/iiif/3/photo-400x300.png/full/^100000,/0/default.jpg", method: .get) { response in
                #expect(String(buffer: response.body).contains("40000000"))
            }
        }
    }

    @Test func rotationMirroringAndQualities() async throws {
        let sandbox = try ServerSandbox()
        defer { sandbox.cleanUp() }
        let photo = self.photo
        try await sandbox.server().test { client in
            for (rotation, orientation) in [("90", Orientation.right), ("180", .down), ("270", .left), ("!0", .upMirrored), ("!90", .rightMirrored)] {
                try await client.execute(uri: "/iiif/3/photo-400x300.png/full/max/\(rotation)/default.png", method: .get) { response in
                    let pixels = try decodePixels(response.body).converted(to: photo.format)
                    #expect(pixels == orientation.apply(to: photo), "rotation \(rotation)")
                }
            }
            try await client.execute(uri: "/iiif/3/photo-400x300.png/full/max/22.5/default.png", method: .get) { response in
                let pixels = try decodePixels(response.body)
                #expect(pixels.size == PixelSize(width: 400, height: 300).rotatedBounds(clockwiseDegrees: 22.5))
                #expect(pixels.format.hasAlpha)
                #expect(pixels.pixel(x: 0, y: 0).last == 0, "the uncovered corner is transparent")
            }
            try await client.execute(uri: "/iiif/3/photo-400x300.png/full/max/0/gray.png", method: .get) { response in
                let pixels = try decodePixels(response.body)
                #expect(pixels.format == .gray8)
                #expect(pixels == photo.converted(to: .gray8))
            }
            try await client.execute(uri: "/iiif/3/photo-400x300.png/full/max/0/bitonal.jpg", method: .get) { response in
                let pixels = try decodePixels(response.body)
                #expect(pixels.format == .gray8)
            }
            try await client.execute(uri: "/iiif/3/photo-400x300.png/full/max/0/bitonal.png", method: .get) { response in
                let decoded = try decodePixels(response.body)
                #expect(Set(decoded.bytes).isSubset(of: [0, 255]))
            }
            try await client.execute(uri: "/iiif/3/photo-400x300.png/full/max/0/default.webp", method: .get) { response in
                #expect(response.headers[.contentType] == "image/webp")
                let decoded = try decodePixels(response.body)
                #expect(decoded.size == photo.size)
            }
        }
    }

    /// BMP, ICO, PAM and TGA sources (ffmpeg's image decoders) are served like any other: info.json
    /// from the header, the full image as PNG with the same pixels, alpha kept.
    @Test(arguments: ["bmp-pal8.bmp", "ico-bmp32.ico", "pam-rgba.pam", "tga-rgba-rle.tga"])
    func stillFormatsAreServed(_ name: String) async throws {
        let sandbox = try ServerSandbox()
        defer { sandbox.cleanUp() }
        try FileManager.default.copyItem(atPath: ServerSandbox.fixtures + "/stills/" + name, toPath: sandbox.root + "/" + name)
        let source = try ImageDecoder().decode(.file(ServerSandbox.fixtures + "/stills/" + name)).pixels
        try await sandbox.server().test { client in
            let info = try await client.execute(uri: "/iiif/3/\(name)/info.json", method: .get)
            let json = try JSONSerialization.jsonObject(with: Data(info.body.readableBytesView)) as? [String: Any]
            #expect(info.status == .ok && json?["width"] as? Int == 37 && json?["height"] as? Int == 23)
            let full = try await client.execute(uri: "/iiif/3/\(name)/full/max/0/default.png", method: .get)
            #expect(full.status == .ok)
            let served = try ImageDecoder().decode(.data(Data(full.body.readableBytesView))).pixels
            #expect(served.size == source.size && maximumDifference(served.converted(to: source.format), source) == 0)
        }
    }

    /// An animated source asked for as WebP is answered animated: every frame cut and scaled as
    /// asked, the durations and loop count kept; other formats get the first frame.
    @Test func animatedSourcesAnswerAnimatedWebP() async throws {
        let sandbox = try ServerSandbox()
        defer { sandbox.cleanUp() }
        let name = "apng-dispose-blend.png"
        try FileManager.default.copyItem(atPath: ServerSandbox.fixtures + "/animation/" + name, toPath: sandbox.root + "/" + name)
        let source = try AnimatedImage(.file(ServerSandbox.fixtures + "/animation/" + name))
        try await sandbox.server().test { client in
            let response = try await client.execute(uri: "/iiif/3/\(name)/8,4,32,32/16,/90/default.webp", method: .get)
            #expect(response.status == .ok && response.headers[.contentType] == "image/webp")
            let answer = try AnimatedImage(.data(Data(response.body.readableBytesView)))
            #expect(answer.isAnimated && answer.frameCount == source.frameCount)
            #expect(answer.size == PixelSize(width: 16, height: 16))
            #expect(answer.properties.animation == source.properties.animation)
            // Each frame is the source's frame cut, scaled and turned (lossy WebP: close, not exact).
            let sourceFrames = try source.makeFrameReader(), answerFrames = try answer.makeFrameReader()
            while let expected = try sourceFrames.next(), let frame = try answerFrames.next() {
                let cut = try #require(expected.pixels.cropped(x: 8, y: 4, width: 32, height: 32))
                let reference = Orientation(mirrored: false, clockwiseQuarterTurns: 1)
                    .apply(to: LanczosResampler.resize(cut, to: PixelSize(width: 16, height: 16)))
                // Colour as it shows (scaled by alpha): WebP does not keep the colour of transparent pixels.
                func shown(_ pixels: PixelBuffer) -> PixelBuffer {
                    var bytes = pixels.bytes
                    for index in bytes.indices where index % 4 != 3 {
                        bytes[index] = UInt8(Int(bytes[index]) * Int(bytes[index - index % 4 + 3]) / 255)
                    }
                    return PixelBuffer(width: pixels.width, height: pixels.height, format: .rgba8, bytes: bytes)
                }
                #expect(meanDifference(shown(frame.pixels), shown(reference)) < 6, "frame \(frame.index)")
            }
            let still = try await client.execute(uri: "/iiif/3/\(name)/full/max/0/default.png", method: .get)
            #expect(try ImageDecoder().probe(.data(Data(still.body.readableBytesView))).animation == nil)
        }
    }

    @Test func linkHeadersAndCanonicalForm() async throws {
        let sandbox = try ServerSandbox()
        defer { sandbox.cleanUp() }
        try await sandbox.server().test { client in
            try await client.execute(uri: "/iiif/3/photo-400x300.png/pct:0,0,100,100/400,/0/color.jpg", method: .get) { response in
                let link = response.headers[CacheableResponse.linkField] ?? ""
                #expect(link.contains("<http://iiif.io/api/image/3/level2.json>;rel=\"profile\""))
                #expect(link.contains("<http://localhost/iiif/3/photo-400x300.png/full/max/0/color.jpg>;rel=\"canonical\""))
                // One header holding both: the validator (and some clients) read only the first.
                #expect(response.headers[values: CacheableResponse.linkField].count == 1)
            }
        }
    }

    @Test func avifAndTheNegotiatedFormat() async throws {
        let sandbox = try ServerSandbox()
        defer { sandbox.cleanUp() }
        try await sandbox.server().test { client in
            let avif = try await client.execute(uri: "/iiif/3/photo-400x300.png/full/200,/0/default.avif", method: .get)
            #expect(avif.status == .ok && avif.headers[.contentType] == "image/avif")
            let decoded = try ImageDecoder().decode(.data(Data(avif.body.readableBytesView)))
            #expect(decoded.properties.format == .avif && decoded.pixels.size == PixelSize(width: 200, height: 150))
            let reference = LanczosResampler.resize(photo, to: decoded.pixels.size)
            #expect(meanDifference(decoded.pixels.converted(to: photo.format), reference) < 8)
            #expect(avif.headers[.vary] == nil)

            let uri = "/iiif/3/photo-400x300.png/full/200,/0/default.auto"
            let chrome = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8"
            var tags = Set<String>()
            let safari =
                "image/webp,image/avif,image/jxl,image/heic,image/heic-sequence,video/*;q=0.8,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5"
            for (accept, type) in [
                (chrome, "image/avif"), ("image/webp,*/*", "image/webp"), (nil, "image/jpeg"), (safari, "image/jxl"),
            ] {
                let headers: HTTPFields = accept.map { [.accept: $0] } ?? [:]
                let response = try await client.execute(uri: uri, method: .get, headers: headers)
                #expect(response.status == .ok && response.headers[.contentType] == type, "\(accept ?? "no Accept")")
                #expect(response.headers[.vary] == "Accept")
                // The canonical link names the format chosen; each answer has its own validator.
                let link = response.headers[CacheableResponse.linkField] ?? ""
                #expect(link.contains("/full/200,150/0/default.\(type == "image/jpeg" ? "jpg" : String(type.dropFirst(6)))>;rel=\"canonical\""))
                tags.insert(try #require(response.headers[.eTag]))
            }
            #expect(tags.count == 4)
            // The JPEG XL answer decodes to the region at the size asked for.
            let jxl = try await client.execute(uri: "/iiif/3/photo-400x300.png/full/200,/0/default.jxl", method: .get)
            #expect(jxl.status == .ok && jxl.headers[.contentType] == "image/jxl")
            let decodedJXL = try ImageDecoder().decode(.data(Data(jxl.body.readableBytesView)))
            #expect(decodedJXL.properties.format == .jxl && decodedJXL.pixels.size == PixelSize(width: 200, height: 150))
            #expect(meanDifference(decodedJXL.pixels.converted(to: photo.format), LanczosResampler.resize(photo, to: decodedJXL.pixels.size)) < 8)
        }
    }

    @Test func conditionalRequestsAndHEAD() async throws {
        let sandbox = try ServerSandbox()
        defer { sandbox.cleanUp() }
        try await sandbox.server().test { client in
            let uri = "/iiif/3/photo-400x300.png/full/100,/0/default.jpg"
            let first = try await client.execute(uri: uri, method: .get)
            let tag = try #require(first.headers[.eTag])
            let modified = try #require(first.headers[.lastModified])
            #expect(first.headers[.cacheControl] == "public, max-age=86400")
            try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: tag]) { response in
                #expect(response.status == .notModified)
                #expect(response.body.readableBytes == 0)
                #expect(response.headers[.eTag] == tag)
            }
            try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: "\"other\", W/\(tag)"]) { #expect($0.status == .notModified) }
            try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: "\"other\""]) { #expect($0.status == .ok) }
            try await client.execute(uri: uri, method: .get, headers: [.ifModifiedSince: modified]) { #expect($0.status == .notModified) }
            try await client.execute(uri: uri, method: .get, headers: [.ifModifiedSince: "Thu, 01 Jan 1970 00:00:00 GMT"]) {
                #expect($0.status == .ok)
            }
            try await client.execute(uri: uri, method: .head) { response in
                #expect(response.status == .ok)
                #expect(response.body.readableBytes == 0)
                #expect(response.headers[.eTag] == tag)
            }
            // Another request has another tag.
            try await client.execute(uri: "/iiif/3/photo-400x300.png/full/101,/0/default.jpg", method: .get) { #expect($0.headers[.eTag] != tag) }
        }
    }

    @Test func malformedParametersAre400AndMissingFeatures501() async throws {
        let sandbox = try ServerSandbox()
        defer { sandbox.cleanUp() }
        try await sandbox.server().test { client in
            for path in [
                "abc/max/0/default.jpg", "full/abc/0/default.jpg", "full/max/abc/default.jpg", "full/max/0/fancy.jpg",
                "full/max/0/default.xyz", "0,0,0,10/max/0/default.jpg", "500,0,10,10/max/0/default.jpg",
                "full/full/0/default.jpg", "full/max/361/default.jpg", "full/0,/0/default.jpg",
            ] {
                try await client.execute(uri: "/iiif/3/photo-400x300.png/\(path)", method: .get) { response in
                    #expect(response.status == .badRequest, "\(path)")
                    #expect(response.headers[.accessControlAllowOrigin] == "*")
                }
            }
            try await client.execute(uri: "/iiif/3/photo-400x300.png/full/max/0/default.tif", method: .get) { #expect($0.status == .badRequest) }
            // A malformed request for an identifier that does not exist is still the request's fault.
            try await client.execute(uri: "/iiif/3/missing.png/nonsense/max/0/default.jpg", method: .get) { #expect($0.status == .badRequest) }
            try await client.execute(uri: "/iiif/3/missing.png/full/max/0/default.jpg", method: .get) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/iiif/3/a/b/full/max/0/default.jpg", method: .get) { #expect($0.status == .notFound) }
        }
    }
}
