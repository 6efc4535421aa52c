import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import TesseraCodecs
import TesseraCore
import Testing

@testable import TesseraServer

/// Pages as images of their own (`{identifier};{n}`) and the IIIF Presentation 3.0 documents made
/// from the root: manifests of images, documents, videos and folders, collections of folders.
@Suite("Pages and IIIF Presentation")
struct PresentationRouteTests {
    /// The sandbox, with a PDF, a multi-page TIFF and a HEIF collection in `docs/`, and a video at
    /// the root.
    static func sandbox() throws -> ServerSandbox {
        let sandbox = try ServerSandbox()
        try FileManager.default.createDirectory(atPath: sandbox.root + "/docs", withIntermediateDirectories: true)
        for (from, to) in [
            ("pdf/two-pages.pdf", "docs/two-pages.pdf"), ("pages/three-pages.tif", "docs/three-pages.tif"), ("video/gop1.mp4", "clip.mp4"),
            ("pages/two-images.heic", "docs/two-images.heic"),
        ] {
            try FileManager.default.copyItem(atPath: ServerSandbox.fixtures + "/" + from, toPath: sandbox.root + "/" + to)
        }
        return sandbox
    }

    static func json(_ response: TestResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any])
    }

    /// The canvases of a manifest: id, width, height, and the painted body.
    static func canvases(_ manifest: [String: Any]) -> [[String: Any]] { manifest["items"] as? [[String: Any]] ?? [] }

    static func body(of canvas: [String: Any]) -> [String: Any]? {
        let page = (canvas["items"] as? [[String: Any]])?.first
        return ((page?["items"] as? [[String: Any]])?.first)?["body"] as? [String: Any]
    }

    static func service(of resource: [String: Any]?) -> String? {
        ((resource?["service"] as? [[String: Any]])?.first)?["id"] as? String
    }

    /// The path and query of an absolute URL this server wrote, to ask the test client for it.
    static func local(_ url: String) -> String {
        let prefix = "http://localhost"
        return url.hasPrefix(prefix) ? String(url.dropFirst(prefix.count)) : url
    }

    @Test func eachPageIsAnImageOfItsOwn() async throws {
        let sandbox = try Self.sandbox()
        defer { sandbox.cleanUp() }
        try await sandbox.server().test { client in
            for (identifier, width, height) in [
                ("docs%2Ftwo-pages.pdf", 612, 792), ("docs%2Ftwo-pages.pdf;2", 300, 200), ("docs%2Ftwo-pages.pdf%3B2", 300, 200),
                ("docs%2Fthree-pages.tif;3", 20, 24), ("docs%2Ftwo-images.heic", 32, 40), ("docs%2Ftwo-images.heic;2", 64, 48),
            ] {
                try await client.execute(uri: "/iiif/3/\(identifier)/info.json", method: .get) { response in
                    #expect(response.status == .ok, "\(identifier)")
                    let info = try Self.json(response)
                    #expect((info["width"] as? Int, info["height"] as? Int) == (width, height), "\(identifier)")
                    let expectedID = "http://localhost/iiif/3/" + identifier.replacingOccurrences(of: "%3B", with: ";")
                    #expect(info["id"] as? String == expectedID)
                }
            }
            // Page 2 of the PDF is green with a black rectangle; of the TIFF, green.
            try await client.execute(uri: "/iiif/3/docs%2Ftwo-pages.pdf;2/0,0,40,40/40,/0/default.png", method: .get) { response in
                #expect(response.status == .ok)
                let pixels = try decodePixels(response.body)
                #expect(Array(pixels.pixel(x: 20, y: 20)) == [0, 255, 0])
                // The canonical link writes the page's `;` as `%3B`, which Link parsers do not split on.
                let links = response.headers[values: CacheableResponse.linkField].joined(separator: ",")
                #expect(links.contains("<http://localhost/iiif/3/docs%2Ftwo-pages.pdf%3B2/0,0,40,40/max/0/default.png>;rel=\"canonical\""))
            }
            try await client.execute(uri: "/iiif/3/docs%2Fthree-pages.tif;2/full/max/0/default.png", method: .get) { response in
                let pixels = try decodePixels(response.body)
                #expect(pixels.size == PixelSize(width: 40, height: 30) && Array(pixels.pixel(x: 0, y: 0)) == [0, 255, 0])
            }
            // Pages that are not there are not found, on every route.
            for uri in [
                "/iiif/3/docs%2Ftwo-pages.pdf;3/info.json", "/iiif/3/photo-400x300.png;2/info.json",
                "/iiif/3/docs%2Ftwo-pages.pdf;3/full/max/0/default.jpg", "/iiif/3/docs%2Ftwo-pages.pdf;0/info.json",
                "/dzi/docs%2Ftwo-pages.pdf;3.dzi",
            ] {
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status == .notFound, "\(uri)")
                #expect(!String(buffer: response.body).contains(sandbox.root))
            }
        }
    }

    @Test func aDocumentsManifestHasACanvasPerPage() async throws {
        let sandbox = try Self.sandbox()
        defer { sandbox.cleanUp() }
        try await sandbox.server().test { client in
            let response = try await client.execute(uri: "/presentation/3/docs%2Ftwo-pages.pdf/manifest", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/ld+json;profile=\"http://iiif.io/api/presentation/3/context.json\"")
            #expect(response.headers[.accessControlAllowOrigin] == "*")
            let manifest = try Self.json(response)
            #expect(manifest["@context"] as? String == "http://iiif.io/api/presentation/3/context.json")
            #expect(manifest["id"] as? String == "http://localhost/presentation/3/docs%2Ftwo-pages.pdf/manifest")
            #expect(manifest["type"] as? String == "Manifest" && manifest["behavior"] as? [String] == ["paged"])
            #expect((manifest["label"] as? [String: [String]])?["none"] == ["two-pages.pdf"])
            let canvases = Self.canvases(manifest)
            #expect(canvases.map { $0["width"] as? Int } == [612, 300] && canvases.map { $0["height"] as? Int } == [792, 200])
            #expect(Set(canvases.compactMap { $0["id"] as? String }).count == 2)
            for (index, canvas) in canvases.enumerated() {
                let body = Self.body(of: canvas)
                let service = try #require(Self.service(of: body))
                #expect(service == "http://localhost/iiif/3/docs%2Ftwo-pages.pdf;\(index + 1)")
                // Each service answers with the canvas's size, and its thumbnail at the size it declares.
                let info = try Self.json(try await client.execute(uri: Self.local(service) + "/info.json", method: .get))
                #expect(info["width"] as? Int == canvas["width"] as? Int && info["height"] as? Int == canvas["height"] as? Int)
                let thumbnail = try #require((canvas["thumbnail"] as? [[String: Any]])?.first)
                let image = try await client.execute(uri: Self.local(try #require(thumbnail["id"] as? String)), method: .get)
                #expect(image.status == .ok)
                let declared = PixelSize(width: try #require(thumbnail["width"] as? Int), height: try #require(thumbnail["height"] as? Int))
                #expect(try decodePixels(image.body).size == declared)
            }
            // The original is offered as it is, and is the file's bytes.
            let rendering = try #require((manifest["rendering"] as? [[String: Any]])?.first)
            #expect(rendering["type"] as? String == "Text" && rendering["format"] as? String == "application/pdf")
            let original = try await client.execute(uri: Self.local(try #require(rendering["id"] as? String)), method: .get)
            #expect(original.status == .ok && original.headers[.contentType] == "application/pdf")
            let stored = try Data(contentsOf: URL(fileURLWithPath: sandbox.root + "/docs/two-pages.pdf"))
            #expect(Data(original.body.readableBytesView) == stored)
            // Its folder's collection is what it is part of.
            let partOf = (manifest["partOf"] as? [[String: Any]])?.first
            #expect(partOf?["id"] as? String == "http://localhost/presentation/3/collection/docs" && partOf?["type"] as? String == "Collection")
            // A revalidation costs a 304.
            let tag = try #require(response.headers[.eTag])
            let again = try await client.execute(uri: "/presentation/3/docs%2Ftwo-pages.pdf/manifest", method: .get, headers: [.ifNoneMatch: tag])
            #expect(again.status == .notModified)
        }
    }

    @Test func imagesAndVideosHaveManifestsAndInfoJSONNamesTheImages() async throws {
        let sandbox = try Self.sandbox()
        defer { sandbox.cleanUp() }
        try await sandbox.server().test { client in
            let image = try Self.json(try await client.execute(uri: "/presentation/3/sub%20dir%2Fnested.png/manifest", method: .get))
            let canvases = Self.canvases(image)
            #expect(canvases.count == 1 && canvases.first?["width"] as? Int == 400 && image["behavior"] == nil)
            #expect(Self.service(of: Self.body(of: canvases[0])) == "http://localhost/iiif/3/sub%20dir%2Fnested.png")
            // info.json names the manifest that shows it, and that manifest is there.
            let info = try Self.json(try await client.execute(uri: "/iiif/3/sub%20dir%2Fnested.png/info.json", method: .get))
            let partOf = try #require((info["partOf"] as? [[String: Any]])?.first)
            #expect(partOf["id"] as? String == image["id"] as? String && partOf["type"] as? String == "Manifest")
            #expect(try await client.execute(uri: Self.local(try #require(partOf["id"] as? String)), method: .get).status == .ok)

            let video = try Self.json(try await client.execute(uri: "/presentation/3/clip.mp4/manifest", method: .get))
            let canvas = try #require(Self.canvases(video).first)
            let body = try #require(Self.body(of: canvas))
            #expect(body["type"] as? String == "Video" && body["format"] as? String == "video/mp4")
            #expect((canvas["duration"] as? Double ?? 0) > 0 && canvas["duration"] as? Double == body["duration"] as? Double)
            let file = try await client.execute(uri: Self.local(try #require(body["id"] as? String)), method: .get, headers: [.range: "bytes=0-99"])
            #expect(file.status == .partialContent && file.body.readableBytes == 100)
            // A page is no manifest of its own; nor is what is not there.
            #expect(try await client.execute(uri: "/presentation/3/docs%2Ftwo-pages.pdf;2/manifest", method: .get).status == .notFound)
            #expect(try await client.execute(uri: "/presentation/3/nothing.png/manifest", method: .get).status == .notFound)
            // files/ serves what Tessera reads as images, nothing else under the root.
            try "secret".write(toFile: sandbox.root + "/notes.txt", atomically: true, encoding: .utf8)
            #expect(try await client.execute(uri: "/files/notes.txt", method: .get).status != .ok)
        }
    }

    @Test func foldersAreCollectionsAndManifests() async throws {
        let sandbox = try Self.sandbox()
        defer { sandbox.cleanUp() }
        try await sandbox.server().test { client in
            let root = try Self.json(try await client.execute(uri: "/presentation/3/collection", method: .get))
            #expect(root["type"] as? String == "Collection" && root["id"] as? String == "http://localhost/presentation/3/collection")
            let items = try #require(root["items"] as? [[String: Any]])
            // The listing's order: folders first, then files, in natural order; files that are no image left out.
            #expect(
                items.compactMap { ($0["label"] as? [String: [String]])?["none"]?.first }
                    == ["docs", "sub dir", "big.png", "broken-truncated.jpg", "clip.mp4", "jpeg-baseline.jpg", "photo-400x300.png"])
            #expect(items.map { $0["type"] as? String } == ["Collection", "Collection"] + Array(repeating: "Manifest", count: 5))
            #expect(items[1]["id"] as? String == "http://localhost/presentation/3/collection/sub%20dir")
            #expect(items[2]["id"] as? String == "http://localhost/presentation/3/big.png/manifest")
            let docs = try Self.json(try await client.execute(uri: "/presentation/3/collection/docs", method: .get))
            #expect((docs["partOf"] as? [[String: Any]])?.first?["id"] as? String == "http://localhost/presentation/3/collection")
            #expect((docs["items"] as? [[String: Any]])?.count == 3)
            // A folder as one manifest of its images, one canvas each.
            let answer = try await client.execute(uri: "/presentation/3/sub%20dir/manifest", method: .get)
            let folder = try Self.json(answer)
            #expect(Self.canvases(folder).count == 1 && folder["id"] as? String == "http://localhost/presentation/3/sub%20dir/manifest")
            // Validators from the folder's version: the same folder is a 304, by tag or by date.
            let tag = try #require(answer.headers[.eTag])
            let modified = try #require(answer.headers[.lastModified])
            let unchanged = try await client.execute(uri: "/presentation/3/sub%20dir/manifest", method: .get, headers: [.ifNoneMatch: tag])
            #expect(unchanged.status == .notModified && unchanged.body.readableBytes == 0)
            let sinceThen = try await client.execute(
                uri: "/presentation/3/sub%20dir/manifest", method: .get, headers: [.ifModifiedSince: modified])
            #expect(sinceThen.status == .notModified)
            // A folder's documents follow it: a file added, or one replaced, is in the next answer.
            try FileManager.default.copyItem(atPath: sandbox.root + "/photo-400x300.png", toPath: sandbox.root + "/sub dir/zz-added.png")
            let grownAnswer = try await client.execute(uri: "/presentation/3/sub%20dir/manifest", method: .get, headers: [.ifNoneMatch: tag])
            #expect(grownAnswer.status == .ok && grownAnswer.headers[.eTag] != tag)
            let grown = try Self.json(grownAnswer)
            #expect(Self.canvases(grown).count == 2)
            try FileManager.default.removeItem(atPath: sandbox.root + "/sub dir/zz-added.png")
            try ImageEncoder.encode(ServerSandbox.pattern(width: 64, height: 32), as: .png()).write(
                to: URL(fileURLWithPath: sandbox.root + "/sub dir/zz-added.png"))
            let replaced = try Self.json(try await client.execute(uri: "/presentation/3/sub%20dir/manifest", method: .get))
            #expect(Self.canvases(replaced).last?["width"] as? Int == 64)
            #expect(try await client.execute(uri: "/presentation/3/collection/nowhere", method: .get).status == .notFound)
            #expect(try await client.execute(uri: "/presentation/3/collection/..%2F..", method: .get).status == .badRequest)
        }
    }

    @Test func mountedUnderABasePathEveryURLNamesIt() async throws {
        let sandbox = try Self.sandbox()
        defer { sandbox.cleanUp() }
        try await sandbox.server {
            $0.basePath = "/tessera"; $0.publicURL = "https://example.org"
        }.test { client in
            let manifest = try Self.json(try await client.execute(uri: "/tessera/presentation/3/docs%2Ftwo-pages.pdf/manifest", method: .get))
            #expect(manifest["id"] as? String == "https://example.org/tessera/presentation/3/docs%2Ftwo-pages.pdf/manifest")
            #expect(Self.service(of: Self.body(of: Self.canvases(manifest)[1])) == "https://example.org/tessera/iiif/3/docs%2Ftwo-pages.pdf;2")
            #expect((manifest["rendering"] as? [[String: Any]])?.first?["id"] as? String == "https://example.org/tessera/files/docs%2Ftwo-pages.pdf")
            let info = try Self.json(try await client.execute(uri: "/tessera/iiif/3/photo-400x300.png/info.json", method: .get))
            #expect(
                (info["partOf"] as? [[String: Any]])?.first?["id"] as? String
                    == "https://example.org/tessera/presentation/3/photo-400x300.png/manifest")
        }
    }

    static let letterSidecar = """
        {"label": {"en": ["Letter"]}, "summary": "<p>Two pages<script>alert(1)</script></p>",
         "metadata": [{"label": {"en": ["Author"]}, "value": "<a href=\\"javascript:alert(1)\\">Ada</a>"}],
         "requiredStatement": {"label": {"en": ["Attribution"]}, "value": "Tessera"},
         "rights": "https://creativecommons.org/licenses/by/4.0/", "navDate": "1843-07-01T00:00:00Z"}
        """

    @Test func sidecarsDescribeFilesAndFolders() async throws {
        let sandbox = try Self.sandbox()
        defer { sandbox.cleanUp() }
        try Self.letterSidecar.write(toFile: sandbox.root + "/docs/two-pages.pdf.iiif.json", atomically: true, encoding: .utf8)
        try #"{"label": "Documents", "viewingDirection": "right-to-left"}"#.write(
            toFile: sandbox.root + "/docs/_folder.iiif.json", atomically: true, encoding: .utf8)
        try "{not json".write(toFile: sandbox.root + "/sub dir/nested.png.iiif.json", atomically: true, encoding: .utf8)
        // A sidecar that leads out of the root is not read.
        try #"{"label": "LEAKED"}"#.write(toFile: sandbox.base + "/outside.json", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(
            atPath: sandbox.root + "/photo-400x300.png.iiif.json", withDestinationPath: sandbox.base + "/outside.json")
        try await sandbox.server().test { client in
            let uri = "/presentation/3/docs%2Ftwo-pages.pdf/manifest"
            let first = try await client.execute(uri: uri, method: .get)
            let letter = try Self.json(first)
            #expect((letter["label"] as? [String: [String]])?["en"] == ["Letter"])
            #expect((letter["summary"] as? [String: [String]])?["none"] == ["<p>Two pages</p>"])
            let metadata = try #require(letter["metadata"] as? [[String: Any]])
            #expect((metadata.first?["label"] as? [String: [String]])?["en"] == ["Author"])
            #expect((metadata.first?["value"] as? [String: [String]])?["none"] == ["<a>Ada</a>"])
            #expect(metadata.count == 5, "the curator's entry, then size, pages, format and file size")
            #expect(letter["rights"] as? String == "http://creativecommons.org/licenses/by/4.0/")
            #expect(letter["navDate"] as? String == "1843-07-01T00:00:00Z" && letter["behavior"] as? [String] == ["paged"])
            // A changed sidecar is a new manifest, with a new entity tag, at once.
            try #"{"label": "Another letter"}"#.write(toFile: sandbox.root + "/docs/two-pages.pdf.iiif.json", atomically: true, encoding: .utf8)
            let second = try await client.execute(uri: uri, method: .get)
            let changed = try Self.json(second)
            #expect((changed["label"] as? [String: [String]])?["none"] == ["Another letter"])
            #expect(second.headers[.eTag] != first.headers[.eTag])
            // The folder's sidecar describes its collection and its manifest.
            let docs = try Self.json(try await client.execute(uri: "/presentation/3/collection/docs", method: .get))
            #expect((docs["label"] as? [String: [String]])?["none"] == ["Documents"] && docs["viewingDirection"] as? String == "right-to-left")
            let book = try Self.json(try await client.execute(uri: "/presentation/3/docs/manifest", method: .get))
            #expect((book["label"] as? [String: [String]])?["none"] == ["Documents"])
            // A broken sidecar, or one outside the root, is not used: the generated document is served.
            let nested = try await client.execute(uri: "/presentation/3/sub%20dir%2Fnested.png/manifest", method: .get)
            let nestedManifest = try Self.json(nested)
            #expect(nested.status == .ok && (nestedManifest["label"] as? [String: [String]])?["none"] == ["nested.png"])
            let photo = try Self.json(try await client.execute(uri: "/presentation/3/photo-400x300.png/manifest", method: .get))
            #expect((photo["label"] as? [String: [String]])?["none"] == ["photo-400x300.png"])
            // Sidecars are not images: no manifest, no file.
            #expect(try await client.execute(uri: "/files/docs%2Ftwo-pages.pdf.iiif.json", method: .get).status != .ok)
        }
    }

    /// Every document the routes make, checked by iiif-prezi3 (the IIIF community's Presentation
    /// 3.0 models, with their silent repairs off: scripts/check-presentation.py).
    @Test func everyDocumentPassesIIIFPrezi3() async throws {
        let sandbox = try Self.sandbox()
        defer { sandbox.cleanUp() }
        try Self.letterSidecar.write(toFile: sandbox.root + "/docs/two-pages.pdf.iiif.json", atomically: true, encoding: .utf8)
        try #"{"label": "Documents", "behavior": ["individuals"]}"#.write(
            toFile: sandbox.root + "/docs/_folder.iiif.json", atomically: true, encoding: .utf8)
        let written = sandbox.base + "/documents"
        try FileManager.default.createDirectory(atPath: written, withIntermediateDirectories: true)
        try await sandbox.server().test { client in
            for (index, uri) in [
                "/presentation/3/collection", "/presentation/3/collection/docs", "/presentation/3/docs%2Ftwo-pages.pdf/manifest",
                "/presentation/3/docs%2Fthree-pages.tif/manifest", "/presentation/3/clip.mp4/manifest", "/presentation/3/big.png/manifest",
                "/presentation/3/sub%20dir/manifest", "/presentation/3/docs/manifest", "/presentation/3/docs%2Ftwo-images.heic/manifest",
            ].enumerated() {
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status == .ok, "\(uri)")
                try Data(response.body.readableBytesView).write(to: URL(fileURLWithPath: written + "/\(index).json"))
            }
        }
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let checker = Process()
        checker.executableURL = repository.appendingPathComponent(".build/presentation-venv/bin/python")
        checker.arguments =
            [repository.appendingPathComponent("scripts/check-presentation.py").path]
            + (0..<9).map { written + "/\($0).json" }
        let output = Pipe()
        checker.standardOutput = output
        checker.standardError = output
        try checker.run()
        let report = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        checker.waitUntilExit()
        #expect(checker.terminationStatus == 0, "\(report)")
        #expect(report.split(separator: "\n").filter { $0.hasPrefix("ok ") }.count == 9, "\(report)")
    }
}
