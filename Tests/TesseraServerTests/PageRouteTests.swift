import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

@testable import TesseraServer

@Suite("Pages and the asset listing")
struct PageRouteTests {
    static let webDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/CTesseraWeb/Web").path

    /// The #embed table in CTesseraWeb lists exactly the files of CTesseraWeb/Web, byte for byte
    /// (scripts/embed-web.py rewrites it): a page file added but not embedded would be a 404 in a
    /// release build only.
    @Test func theBuiltInPagesAreExactlyTheWebDirectory() throws {
        let assets = WebAssets()
        let onDisk = try FileManager.default.contentsOfDirectory(atPath: Self.webDirectory).filter { !$0.hasPrefix(".") }.sorted()
        #expect(assets.builtInNames == onDisk)
        for name in onDisk {
            #expect(WebAssets.isValidName(name), "\(name) is not a name the server serves")
            let bytes = try Data(contentsOf: URL(fileURLWithPath: Self.webDirectory + "/" + name))
            #expect(assets.asset(named: name).map { Data($0.body.readableBytesView) } == bytes, "\(name) differs from its embedded copy")
        }
    }

    @Test func pagesAreServedWithValidatorsAndAPolicy() async throws {
        let sandbox = try ServerSandbox()
        defer { sandbox.cleanUp() }
        try await sandbox.server().test { client in
            let tag = try await client.execute(uri: "/view/big.png", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/html; charset=utf-8")
                #expect(response.headers[.cacheControl] == "no-cache")
                #expect(response.headers[HTTPField.Name("Content-Security-Policy")!]?.contains("script-src 'self'") == true)
                // Every URL in a page is relative to its base: where the pages are mounted.
                #expect(String(buffer: response.body).contains("<base href=\"/\">"))
                #expect(String(buffer: response.body).contains("src=\"web/viewer.js\""))
                return try #require(response.headers[.eTag])
            }
            // The same page for any identifier: nothing from the URL is written into it.
            try await client.execute(uri: "/view/%3Cscript%3E", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.eTag] == tag)
            }
            try await client.execute(uri: "/view/big.png", method: .get, headers: [.ifNoneMatch: tag]) { #expect($0.status == .notModified) }
            for path in ["/", "/grid", "/trim/clip.mp4", "/web/common.css", "/web/grid.js", "/favicon.ico"] {
                try await client.execute(uri: path, method: .get) { #expect($0.status == .ok, "\(path)") }
            }
            try await client.execute(uri: "/web/grid.js", method: .get) { #expect($0.headers[.contentType] == "text/javascript; charset=utf-8") }
            for path in ["/web/missing.js", "/web/..%2FPackage.swift", "/web/GRID.JS", "/web/grid.js.map"] {
                try await client.execute(uri: path, method: .get) { #expect($0.status == .notFound, "\(path)") }
            }
        }
    }

    /// `--pages DIR` reads each file from DIR on every request, so an edit shows without a restart.
    @Test func aPagesDirectoryIsReadOnEveryRequest() async throws {
        let sandbox = try ServerSandbox()
        defer { sandbox.cleanUp() }
        let pages = sandbox.base + "/pages"
        try FileManager.default.createDirectory(atPath: pages, withIntermediateDirectories: true)
        try "one".write(toFile: pages + "/grid.js", atomically: true, encoding: .utf8)
        try await sandbox.server { $0.pagesDirectory = pages }.test { client in
            try await client.execute(uri: "/web/grid.js", method: .get) { #expect(String(buffer: $0.body) == "one") }
            try "two".write(toFile: pages + "/grid.js", atomically: true, encoding: .utf8)
            try await client.execute(uri: "/web/grid.js", method: .get) { #expect(String(buffer: $0.body) == "two") }
            try await client.execute(uri: "/web/index.js", method: .get) { #expect($0.status == .notFound) }
        }
    }

    struct Listing: Decodable {
        struct Entry: Decodable {
            let kind: String
            let name: String
            let path: String
            let id: String
            let width: Int?
            let height: Int?
            let duration: Double?
            let error: String?
        }

        let dir: String
        let parent: String?
        let entries: [Entry]
        let next: String?
        let skipped: Int
    }

    @Test func theListingPagesThroughDirectoriesThenMediaInNaturalOrder() async throws {
        let sandbox = try ServerSandbox()
        defer { sandbox.cleanUp() }
        let photos = sandbox.root + "/photos"
        try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
        for number in [1, 2, 10, 9, 100] {
            try FileManager.default.copyItem(atPath: ServerSandbox.fixtures + "/jpeg-baseline.jpg", toPath: photos + "/p\(number).jpg")
        }
        try FileManager.default.copyItem(atPath: ServerSandbox.fixtures + "/video/gop1.mp4", toPath: sandbox.root + "/clip.mp4")
        try "not media".write(toFile: sandbox.root + "/notes.txt", atomically: true, encoding: .utf8)
        try "hidden".write(toFile: sandbox.root + "/.hidden.jpg", atomically: true, encoding: .utf8)
        try await sandbox.server().test { client in
            let root = try await listing(client, "/api/assets")
            #expect(
                root.entries.map(\.name) == [
                    "photos", "sub dir", "big.png", "broken-truncated.jpg", "clip.mp4", "jpeg-baseline.jpg",
                    "photo-400x300.png",
                ])
            #expect(root.entries.first { $0.name == "sub dir" }?.id == "sub%20dir")
            let clip = try #require(root.entries.first { $0.name == "clip.mp4" })
            #expect((clip.kind, clip.width, clip.height, clip.duration) == ("video", 256, 144, 4))
            let photo = try #require(root.entries.first { $0.name == "photo-400x300.png" })
            #expect((photo.kind, photo.width, photo.height) == ("image", 400, 300))
            // notes.txt and random bytes named .jpg are neither; dotfiles are never listed.
            #expect(root.skipped == 2)
            #expect(root.parent == nil && root.next == nil)

            var names: [String] = []
            var cursor: String?
            repeat {
                let query =
                    "/api/assets?dir=photos&limit=2"
                    + (cursor.map { "&cursor=" + $0.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! } ?? "")
                let page = try await listing(client, query)
                #expect(page.entries.count <= 2)
                #expect(page.parent == "")
                names += page.entries.map(\.name)
                #expect(page.entries.allSatisfy { $0.id == "photos%2F" + $0.name })
                cursor = page.next
            } while cursor != nil
            #expect(names == ["p1.jpg", "p2.jpg", "p9.jpg", "p10.jpg", "p100.jpg"])

            for (query, status) in [
                ("dir=..", HTTPResponse.Status.badRequest), ("dir=%2Fetc", .badRequest), ("dir=missing", .notFound),
                ("dir=big.png", .notFound), ("limit=0", .badRequest), ("cursor=bogus", .badRequest),
            ] {
                try await client.execute(uri: "/api/assets?" + query, method: .get) { #expect($0.status == status, "\(query)") }
            }
        }
    }

    /// A still image is never handed to ffmpeg: one Tessera reads is an image (a TGA, which ffmpeg
    /// opened as a one-frame "video"), and one it cannot read is listed with its image error
    /// (a damaged PNG was a "corrupt video"), not skipped as neither.
    @Test func theListingReportsStillsThatCannotBeReadAsImages() async throws {
        let sandbox = try ServerSandbox()
        defer { sandbox.cleanUp() }
        let odd = sandbox.root + "/odd"
        try FileManager.default.createDirectory(atPath: odd, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: ServerSandbox.fixtures + "/stills/tga-rgb-nofooter.tga", toPath: odd + "/a.tga")
        try FileManager.default.copyItem(atPath: ServerSandbox.fixtures + "/broken-garbage.gif", toPath: odd + "/b.gif")
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        try Data(signature + [0, 0, 0, 13] + Array("IHDX".utf8) + [UInt8](repeating: 7, count: 40)).write(to: URL(fileURLWithPath: odd + "/c.png"))
        try Data([0x0A, 5, 1, 8] + [UInt8](repeating: 0, count: 124)).write(to: URL(fileURLWithPath: odd + "/d.pcx"))
        try await sandbox.server().test { client in
            let page = try await listing(client, "/api/assets?dir=odd")
            #expect(page.entries.map(\.kind) == ["image", "image", "image", "image"])
            #expect(page.entries.map(\.width) == [37, nil, nil, nil])
            #expect(page.entries.map { $0.error?.split(separator: ":").first } == [nil, "corrupt", "corrupt", "unsupported"])
            #expect(page.entries[3].error == "unsupported: PCX images are not read")
            #expect(page.skipped == 0)
        }
    }

    private func listing(_ client: any TestClientProtocol, _ uri: String) async throws -> Listing {
        try await client.execute(uri: uri, method: .get) { response in
            #expect(response.status == .ok)
            return try JSONDecoder().decode(Listing.self, from: Data(response.body.readableBytesView))
        }
    }

    @Test func naturalOrderComparesNumbersByValue() {
        let names = ["b", "a10", "a2", "a02", "a1", "A", "a", "a1b", "a1a", "10", "9"]
        #expect(names.sorted(by: AssetListing.naturallyBefore) == ["9", "10", "A", "a", "a1", "a1a", "a1b", "a2", "a02", "a10", "b"])
    }
}
