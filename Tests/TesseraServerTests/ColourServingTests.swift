import Foundation
import HummingbirdTesting
import NIOCore
import TesseraCodecs
import TesseraCore
import TesseraTestSupport
import Testing

@testable import TesseraServer

/// Sources with an embedded profile, served converted to sRGB (the default) or with the profile
/// kept and embedded in every answer (``ServerConfiguration/colorManagement``).
@Suite("Serving colour")
struct ColourServingTests {
    /// A sandbox whose root also holds `tagged-big.png` (the 1300×1000 pattern, pyramid path) and
    /// `tagged-small.png` (400×300, decoded whole), both smooth gradients tagged Adobe RGB; and
    /// that profile.
    static func sandbox() throws -> (ServerSandbox, ICCProfile) {
        let sandbox = try ServerSandbox()
        let profile = try #require(try ImageDecoder().probe(.file(ServerSandbox.fixtures + "/colour/adobe-rgb.png")).iccProfile)
        for (name, size) in [("tagged-big.png", PixelSize(width: 1300, height: 1000)), ("tagged-small.png", PixelSize(width: 400, height: 300))] {
            try ImageEncoder.encode(smooth(size), as: .png(), iccProfile: profile).write(to: URL(fileURLWithPath: sandbox.root + "/" + name))
        }
        return (sandbox, profile)
    }

    /// Saturated gradients without fine detail: lossy answers then differ from each other by
    /// their coding error only, far less than by a conversion.
    static func smooth(_ size: PixelSize) -> PixelBuffer {
        var bytes = [UInt8]()
        bytes.reserveCapacity(size.width * size.height * 3)
        for y in 0..<size.height {
            for x in 0..<size.width {
                let u = x * 255 / max(1, size.width - 1), v = y * 255 / max(1, size.height - 1)
                bytes += [UInt8(u), UInt8(v), UInt8(255 - (u + v) / 2)]
            }
        }
        return PixelBuffer(width: size.width, height: size.height, format: .rgb8, bytes: bytes)
    }

    static let requests = [
        "/iiif/3/tagged-big.png/0,0,512,512/512,/0/default.jpg",  // an aligned tile, stored
        "/iiif/3/tagged-big.png/100,100,700,500/350,/0/default.png",  // composed from tiles
        "/iiif/3/tagged-small.png/full/200,/0/default.webp",  // a small source, decoded whole
        "/dzi/tagged-big.png_files/11/1_1.jpeg",
    ]

    @Test func profilesAreConvertedByDefault() async throws {
        let (sandbox, _) = try Self.sandbox()
        defer { sandbox.cleanUp() }
        let server = try sandbox.server { $0.smallSourcePixelLimit = 200_000 }
        try await server.test { client in
            for uri in Self.requests {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .ok, "\(uri)")
                    let profile = try ImageDecoder().probe(.data(Data(response.body.readableBytesView))).iccProfile
                    #expect(profile == nil, "\(uri) is converted, so untagged")
                }
            }
        }
    }

    @Test func keptProfilesAreEmbeddedInEveryAnswer() async throws {
        let (sandbox, profile) = try Self.sandbox()
        defer { sandbox.cleanUp() }
        // Levels read by region, so each setting builds its pyramids (in the background).
        let converting = try sandbox.server {
            $0.smallSourcePixelLimit = 200_000; $0.levelPixelLimit = 0
        }
        let keeping = try sandbox.server {
            $0.smallSourcePixelLimit = 200_000; $0.levelPixelLimit = 0; $0.colorManagement = .keepSourceProfile
        }
        let converted = Locked<[String: PixelBuffer]>([:])
        let convertedTags = Locked<[String: String]>([:])
        try await converting.test { client in
            for uri in Self.requests {
                let response = try await client.execute(uri: uri, method: .get)
                let pixels = try decodePixels(response.body)
                converted.withLock { $0[uri] = pixels }
                convertedTags.withLock { $0[uri] = response.headers[.eTag] }
            }
        }
        try await keeping.test { client in
            for uri in Self.requests {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .ok, "\(uri)")
                    // Other pixels, another validator: a client holding the converted answer's
                    // ETag must not get a 304 for this one.
                    let tag = try #require(response.headers[.eTag])
                    #expect(tag != convertedTags.withLock { $0[uri] }, "\(uri)")
                    let data = Data(response.body.readableBytesView)
                    let embedded = try ImageDecoder().probe(.data(data)).iccProfile
                    #expect(embedded?.data == profile.data, "\(uri) carries the source's profile")
                    // Decoded by a colour-managed reader, the kept answer shows what the converted one does.
                    let shown = try ImageDecoder().decode(.data(data)).pixels
                    let raw = try ImageDecoder(options: DecodeOptions(colorManagement: .keepSourceProfile)).decode(.data(data)).pixels
                    let reference = try #require(converted.withLock { $0[uri] })
                    let (same, apart) = (meanDifference(shown, reference), meanDifference(raw, reference))
                    #expect(apart > 3 * same, "\(uri): converted vs kept \(same), vs kept and unconverted \(apart)")
                }
            }
            // Gray answers are made from sRGB: a colour profile cannot describe them.
            let gray = try await client.execute(uri: "/iiif/3/tagged-big.png/full/325,/0/gray.png", method: .get)
            #expect(gray.status == .ok)
            let grayProfile = try ImageDecoder().probe(.data(Data(gray.body.readableBytesView))).iccProfile
            #expect(grayProfile == nil)
        }
        // The two settings' pyramids live apart.
        await converting.service.builds.finished()
        await keeping.service.builds.finished()
        let key = try await keeping.service.resolve("tagged-big.png").identity.description
        #expect(FileManager.default.fileExists(atPath: sandbox.cache + "/.kept-profiles/" + key + "/dzi.dzi"))
        #expect(FileManager.default.fileExists(atPath: sandbox.cache + "/" + key + "/dzi.dzi"))
    }
}
