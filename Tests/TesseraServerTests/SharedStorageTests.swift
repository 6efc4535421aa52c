import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import StorageTestSupport
import TesseraCodecs
import TesseraCore
import TesseraStorage
import Testing

@testable import TesseraServer

/// `tessera serve` over object storage, against a real SeaweedFS: originals read from a bucket by
/// byte ranges, and pyramids in a bucket every server shares, built once among them under a lease
/// and never seen half-written.
@Suite("Serving from and through S3 (SeaweedFS)", .seaweedFS, .serialized)
struct SharedStorageTests {
    var seaweed: SeaweedFS { SeaweedFSScope.current! }

    /// A sandbox, its images uploaded to a fresh bucket, and a fresh bucket for shared pyramids.
    private func stores(_ name: String) async throws -> (sandbox: ServerSandbox, originals: S3ObjectStore, pyramids: S3ObjectStore) {
        let sandbox = try ServerSandbox()
        let originals = try await seaweed.store(bucket: "\(name)-originals")
        for file in ["big.png", "jpeg-baseline.jpg", "photo-400x300.png"] {
            try await originals.put(file, Data(contentsOf: URL(fileURLWithPath: sandbox.root + "/" + file)))
        }
        try await originals.put("sub dir/nested.png", Data(contentsOf: URL(fileURLWithPath: sandbox.root + "/sub dir/nested.png")))
        return (sandbox, originals, try await seaweed.store(bucket: "\(name)-pyramids"))
    }

    /// A server whose pyramids live in `shared`, with a cache directory of its own (unused for pyramids).
    private func server(
        _ sandbox: ServerSandbox, root: (any ObjectStoring)?, shared: (any ObjectStoring)?, instance: String,
        _ configure: (inout ServerConfiguration) -> Void = { _ in }
    ) throws -> TesseraServer {
        try sandbox.server {
            $0.cacheDirectory = sandbox.base + "/cache-" + instance
            $0.rootStore = root
            $0.sharedCache = shared
            $0.smallSourcePixelLimit = 0
            // Every level read by region, so a pyramid is built (in the background) on first use.
            $0.levelPixelLimit = 0
            configure(&$0)
        }
    }

    /// The builds under each source's identity in the shared store: `{identity}/{build}/…` prefixes.
    private func builds(in store: S3ObjectStore) async throws -> Set<String> {
        Set(
            try await store.listAll(prefix: "").compactMap { object -> String? in
                let parts = object.key.split(separator: "/")
                guard parts.count > 2, !parts[1].hasSuffix(".lease") else { return nil }
                return parts[0] + "/" + parts[1]
            })
    }

    private func get(_ server: TesseraServer, _ uri: String) async throws -> (status: HTTPResponse.Status, body: Data) {
        let result = Locked<(HTTPResponse.Status, Data)>((.ok, Data()))
        try await server.test { client in
            try await client.execute(uri: uri, method: .get) { response in
                result.withLock { $0 = (response.status, Data(response.body.readableBytesView)) }
            }
        }
        return result.withLock { $0 }
    }

    @Test func aRootInS3AnswersAsTheSameFilesOnDiskDo() async throws {
        let (sandbox, originals, _) = try await stores("root")
        defer { sandbox.cleanUp() }
        let fromDisk = try sandbox.server {
            $0.smallSourcePixelLimit = 0; $0.levelPixelLimit = 0; $0.cacheDirectory = sandbox.base + "/cache-disk"
        }
        let fromS3 = try server(sandbox, root: originals, shared: nil, instance: "s3")
        for uri in [
            "/iiif/3/big.png/info.json", "/iiif/3/big.png/0,0,256,256/256,/0/default.jpg",
            "/iiif/3/big.png/300,200,600,500/max/0/default.png", "/iiif/3/jpeg-baseline.jpg/full/max/90/gray.png",
            "/iiif/3/sub%20dir%2Fnested.png/full/100,/0/default.jpg",
            "/dzi/big.png.dzi", "/dzi/big.png_files/9/1_0.jpeg",
        ] {
            let disk = try await get(fromDisk, uri), s3 = try await get(fromS3, uri)
            #expect(disk.status == .ok && s3.status == .ok, "\(uri): \(disk.status) \(s3.status)")
            if uri.hasSuffix("info.json") {
                // The same but for the validator-free parts; ids name the same identifier.
                #expect(String(decoding: s3.body, as: UTF8.self) == String(decoding: disk.body, as: UTF8.self))
            } else {
                #expect(s3.body == disk.body, "\(uri)")
            }
        }
        // Missing keys, hostile identifiers, and what a store root does not offer.
        #expect(try await get(fromS3, "/iiif/3/missing.png/info.json").status == .notFound)
        #expect(try await get(fromS3, "/iiif/3/..%2Fbig.png/info.json").status == .badRequest)
        #expect(try await get(fromS3, "/iiif/3/sub%20dir/info.json").status == .notFound)
        #expect(try await get(fromS3, "/api/assets").status == .notImplemented)
    }

    @Test func aPyramidBuiltThroughOneServerIsServedByAnotherWithoutASecondBuild() async throws {
        let (sandbox, originals, pyramids) = try await stores("share")
        defer { sandbox.cleanUp() }
        let first = try server(sandbox, root: originals, shared: pyramids, instance: "a")
        let second = try server(sandbox, root: originals, shared: pyramids, instance: "b")
        let tile = "/iiif/3/big.png/256,256,256,256/256,/0/default.jpg"
        let built = try await get(first, tile)
        #expect(built.status == .ok)
        await first.service.builds.finished()
        let afterFirst = try await builds(in: pyramids)
        #expect(afterFirst.count == 1)
        // The second server has never seen the image: it finds the pyramid, builds nothing, and
        // answers with the stored tile's bytes, as the first did.
        let served = try await get(second, tile)
        await second.service.builds.finished()
        #expect(served.status == .ok && served.body == built.body)
        #expect(try await builds(in: pyramids) == afterFirst)
        let stored = try await pyramids.get(try #require(afterFirst.first) + "/iiif-256/256,256,256,256/256,256/0/default.jpg")
        #expect(stored == built.body)
        let metrics = String(decoding: second.service.metrics.exposition(queuedJobs: 0), as: UTF8.self)
        #expect(metrics.contains("tessera_pyramid_builds_total 0"))
        // Regions composed from stored tiles agree between the two, and nothing was written locally.
        let region = "/iiif/3/big.png/300,200,600,500/max/0/default.png"
        #expect(try await get(first, region).body == (try await get(second, region)).body)
        #expect(!FileManager.default.fileExists(atPath: sandbox.base + "/cache-a/" + (try #require(afterFirst.first)).split(separator: "/")[0]))
    }

    @Test func twoServersAskedForTheSameUnseenImageAtOnceBuildItOnce() async throws {
        let (sandbox, originals, pyramids) = try await stores("once")
        defer { sandbox.cleanUp() }
        let servers = try ["a", "b", "c"].map { try server(sandbox, root: originals, shared: pyramids, instance: $0) }
        let tile = "/dzi/big.png_files/10/2_1.jpeg"
        let answers = try await withThrowingTaskGroup(of: (HTTPResponse.Status, Data).self) { group in
            for server in servers { group.addTask { try await self.get(server, tile) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.allSatisfy { $0.0 == .ok })
        #expect(Set(answers.map(\.1)).count == 1)
        // Each answered from the source and started a build in the background: one of them built.
        for server in servers { await server.service.builds.finished() }
        #expect(try await builds(in: pyramids).count == 1)
        let total = servers.map { String(decoding: $0.service.metrics.exposition(queuedJobs: 0), as: UTF8.self) }
            .filter { $0.contains("tessera_pyramid_builds_total 1") }.count
        #expect(total == 1)
    }

    /// A builder that died holding the lease (it never renews) delays the others by at most the
    /// lease's duration: then one takes the lease over and builds.
    @Test func aLeaseLeftByACrashedBuilderIsTakenOver() async throws {
        let (sandbox, originals, pyramids) = try await stores("takeover")
        defer { sandbox.cleanUp() }
        let server = try server(sandbox, root: originals, shared: pyramids, instance: "a") { $0.leaseDuration = .seconds(2) }
        let source = try await server.service.resolve("big.png")
        let crashed = ObjectLeases(store: pyramids, duration: .seconds(2), owner: "crashed-builder")
        guard case .acquired = try await crashed.acquire(source.key + "/iiif-256") else {
            Issue.record("the crashed builder's lease was not taken")
            return
        }
        // And its half-written build: tiles, no pointer.
        try await pyramids.put(source.key + "/deadbeef0000/iiif-256/0,0,256,256/256,/0/default.jpg", Data("not a tile".utf8))
        let answer = try await get(server, "/iiif/3/big.png/0,0,256,256/256,/0/default.jpg")
        #expect(answer.status == .ok)
        // Answered from the source at once; the build waits out the lease in the background.
        await server.service.builds.finished()
        #expect(try ImageDecoder().probe(.data(answer.body)).size == PixelSize(width: 256, height: 256))
        let found = try await builds(in: pyramids)
        #expect(found.count == 2 && found.contains(source.key + "/deadbeef0000"))
        let pointer = String(decoding: try await pyramids.get(source.key + "/iiif-256.pyramid"), as: UTF8.self)
        #expect(pointer != "deadbeef0000" && found.contains(source.key + "/" + pointer))
    }

    /// The shared store failing for a while (errors, dropped connections, stalls past the client's
    /// timeout): requests fail with a 5xx (or succeed through the client's retries), nothing broken
    /// is remembered, and all is served right once it recovers.
    @Test func storageFaultsDegradeToErrorsAndRecover() async throws {
        let (sandbox, originals, _) = try await stores("faults")
        defer { sandbox.cleanUp() }
        let throughProxy = try await seaweed.store(bucket: "faults-pyramids", throughProxy: true)
        let reference = try server(sandbox, root: nil, shared: nil, instance: "reference")
        let tiles = (0..<4).map { "/iiif/3/big.png/\($0 * 256),0,256,256/256,/0/default.jpg" }
        // A fresh server for each fault (nothing in its memory): the first tile is answered from
        // the source and starts a build, which meets the fault (and fails, or finishes through the
        // client's retries); after it, answers come from the source or the pyramid alike.
        // Stalls: 6 s, past the client's 5-s request timeout, three times.
        for (index, mode) in ["status&code=503&count=40", "status&code=500&count=40", "drop&count=40", "stall&seconds=6&count=3"].enumerated() {
            let server = try server(sandbox, root: originals, shared: throughProxy, instance: "\(index)")
            try seaweed.fault("mode=\(mode)")
            for tile in tiles {
                let answer = try await get(server, tile)
                #expect(answer.status == .ok || answer.status.code >= 500, "\(mode) \(tile): \(answer.status)")
            }
            await server.service.builds.finished()
            try seaweed.fault("mode=none")
            for tile in tiles {
                let (answer, expected) = (try await get(server, tile), try await get(reference, tile))
                #expect(answer.status == .ok && answer.body == expected.body, "\(mode) \(tile) after recovery")
            }
        }
        #expect(try seaweed.proxyStats().faulted > 0)
    }
}
