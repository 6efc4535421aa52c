import Foundation
import HummingbirdTesting
import TesseraCore
import Testing

@testable import TesseraServer

/// A scanned PDF page served at its scan's resolution (Tests/Fixtures/pdf/scanned-300dpi.pdf, made
/// by scripts/make-pdf-fixtures.py: a 144×216 pt page filled by a 600×900 image).
@Suite("PDF pages at their images' resolution")
struct PDFResolutionRouteTests {
    /// The scan's pixel at (x, y) from the top left (the script's `pattern`).
    static func pattern(_ x: Int, _ y: Int) -> [UInt8] {
        if x % 50 == 0 { return [255, 0, 0] }
        if y % 50 == 0 { return [0, 0, 255] }
        return (x / 3 + y / 3) % 2 == 0 ? [255, 255, 255] : [0, 0, 0]
    }

    @Test("a PDF page whose embedded image is 300 dpi is offered at that resolution")
    func scannedPageAtItsResolution() async throws {
        let sandbox = try ServerSandbox()
        defer { sandbox.cleanUp() }
        try FileManager.default.copyItem(atPath: ServerSandbox.fixtures + "/pdf/scanned-300dpi.pdf", toPath: sandbox.root + "/scan.pdf")
        try await sandbox.server().test { client in
            let info = try PresentationRouteTests.json(try await client.execute(uri: "/iiif/3/scan.pdf/info.json", method: .get))
            #expect((info["width"] as? Int, info["height"] as? Int) == (600, 900))
            let manifest = try PresentationRouteTests.json(try await client.execute(uri: "/presentation/3/scan.pdf/manifest", method: .get))
            let canvas = try #require(PresentationRouteTests.canvases(manifest).first)
            #expect((canvas["width"] as? Int, canvas["height"] as? Int) == (600, 900))
            // A region at full resolution is the scan's own pixels: sharp, not enlarged from 144×216.
            let response = try await client.execute(uri: "/iiif/3/scan.pdf/40,60,200,150/max/0/default.png", method: .get)
            #expect(response.status == .ok)
            let pixels = try decodePixels(response.body)
            try #require(pixels.size == PixelSize(width: 200, height: 150))
            var differing = 0
            for y in 0..<150 {
                for x in 0..<200
                where zip(Array(pixels.pixel(x: x, y: y)), Self.pattern(40 + x, 60 + y)).contains(where: { abs(Int($0) - Int($1)) > 32 }) {
                    differing += 1
                }
            }
            #expect(differing <= 200 * 150 / 100, "\(differing) of \(200 * 150) pixels differ from the scan")
        }
    }
}
