import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import TesseraCore
import Testing

@testable import TesseraServer

/// A slide's label (`{identifier};label`) is served only by a server asked to serve labels, and
/// then only to whoever may see the slide: its access rule is the slide's.
@Suite struct AssociatedImageAccessTests {
    /// The 256-px Aperio slide of the FuzzSlide seeds: a 16×16 label, a 32×16 macro, a 4×4 thumbnail.
    static let slide = URL(fileURLWithPath: ServerSandbox.fixtures).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/corpus/FuzzSlide/aperio-tables-256.svs").path

    /// An info.json's `width`.
    static func width(_ body: ByteBuffer) throws -> Int? {
        (try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any])?["width"] as? Int
    }

    @Test(arguments: [false, true])
    func aLabelIsServedOnlyWhenAskedAndOnlyToWhoMaySeeTheSlide(serves: Bool) async throws {
        let (sandbox, access) = try AccessRouteTests.setUp()
        defer { sandbox.cleanUp() }
        for folder in ["public", "staff"] {
            try FileManager.default.copyItem(atPath: Self.slide, toPath: sandbox.root + "/\(folder)/slide.svs")
        }
        let server = try sandbox.server {
            $0.access = access
            $0.servesAssociatedImages = serves
        }
        try await server.makeApplication().test(.router) { client in
            for (folder, credential, allowed) in [
                ("public", AccessRouteTests.Credential.anonymous, true), ("staff", .rightUser, true), ("staff", .anonymous, false),
                ("staff", .wrongUser, false),
            ] {
                for path in ["info.json", "full/max/0/default.png"] {
                    let (uri, headers) = try AccessRouteTests.request("/iiif/3/\(folder)%2Fslide.svs;label/\(path)", credential, access: access)
                    let response = try await client.execute(uri: uri, method: .get, headers: headers)
                    let label = "\(folder) \(credential.rawValue) \(path)"
                    if !allowed {
                        // Refused as the slide itself would be, whether or not labels are served.
                        #expect([.unauthorized, .forbidden].contains(response.status), "\(label)")
                    } else if serves {
                        #expect(response.status == .ok, "\(label)")
                        if path == "info.json" { #expect(try Self.width(response.body) == 16, "\(label)") }
                    } else {
                        #expect(response.status == .notFound, "\(label)")
                        #expect(!String(buffer: response.body).contains(sandbox.root), "\(label)")
                    }
                }
            }
            // The slide itself, whatever the option.
            let slide = try await client.execute(uri: "/iiif/3/public%2Fslide.svs/info.json", method: .get)
            #expect(slide.status == .ok)
            #expect(try Self.width(slide.body) == 256)
        }
    }
}
