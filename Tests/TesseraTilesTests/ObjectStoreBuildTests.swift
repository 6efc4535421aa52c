import Foundation
import StorageTestSupport
import TesseraCodecs
import TesseraCore
import TesseraStorage
import Testing

@testable import TesseraTiles

@Suite("Building pyramids into S3 (SeaweedFS)", .seaweedFS, .serialized)
struct ObjectStoreBuildTests {
    var server: SeaweedFS { SeaweedFSScope.current! }
    let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/photo-400x300.png").path
    let options = PyramidOptions(layout: .deepZoom(tileSize: 64, overlap: 1), encoding: .png(), jobs: 2)

    /// The same files, byte for byte, as a build into a directory, and the descriptor among them.
    @Test func aPyramidInS3HoldsWhatADirectoryBuildHolds() async throws {
        let store = try await server.store(bucket: "pyramids")
        let summary = try await PyramidBuilder.build(.file(fixture), name: "photo", store: store, prefix: "a/b", options: options)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-s3-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let local = try await PyramidBuilder.build(.file(fixture), name: "photo", outputDirectory: directory.path, options: options)
        #expect(summary.tiles == local.tiles && summary.bytes == local.bytes)
        let objects = try await store.listAll(prefix: "a/b/")
        let files = FileManager.default.enumerator(atPath: directory.path)!.compactMap { $0 as? String }
            .filter {
                !$0.hasSuffix("_files") && !$0.contains(".tessera-")
                    && (try? FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent($0).path)) == nil
            }
        #expect(Set(objects.map { String($0.key.dropFirst("a/b/".count)) }) == Set(files))
        #expect(objects.count == summary.tiles + 1, "every tile and the descriptor")
        for file in files {
            let stored = try await store.get("a/b/" + file)
            #expect(stored == (try Data(contentsOf: directory.appendingPathComponent(file))), "\(file)")
        }
    }

    /// The store fails partway (after 20 requests, 4 times: every attempt of one upload); the
    /// build fails, and what it had uploaded is gone, so no reader ever sees part of a pyramid,
    /// nor a descriptor, nor the old pyramid it was replacing.
    @Test func aBuildTheStoreFailsPartwayLeavesNothing() async throws {
        let store = try await server.store(bucket: "partial", throughProxy: true)
        _ = try await PyramidBuilder.build(.file(fixture), name: "photo", store: store, prefix: "p", options: options)
        #expect(try await store.head("p/photo.dzi") != nil)
        try server.fault("mode=status&code=500&count=4&after=20")
        await #expect(throws: ObjectStorageError.self) {
            _ = try await PyramidBuilder.build(.file(fixture), name: "photo", store: store, prefix: "p", options: options, uploadConcurrency: 1)
        }
        try server.fault("mode=none")
        #expect(try await store.head("p/photo.dzi") == nil, "no descriptor: the pyramid is not visible")
        let left = try await store.listAll(prefix: "p/")
        // The first build's tiles that the second did not overwrite may remain, without a descriptor.
        #expect(!left.contains { $0.key.hasSuffix(".dzi") })
        // And a build once the store is back makes it whole again.
        _ = try await PyramidBuilder.build(.file(fixture), name: "photo", store: store, prefix: "p", options: options)
        #expect(try await store.head("p/photo.dzi") != nil)
    }

    @Test func cancellingABuildRemovesWhatItUploaded() async throws {
        let store = try await server.store(bucket: "cancelled", throughProxy: true)
        // Slow uploads, so the build is still running when it is cancelled.
        try server.fault("mode=stall&seconds=0.3&count=1000")
        let build = Task {
            try await PyramidBuilder.build(.file(fixture), name: "photo", store: store, prefix: "c", options: options, uploadConcurrency: 1)
        }
        try await Task.sleep(for: .milliseconds(800))
        build.cancel()
        await #expect(throws: CancellationError.self) { _ = try await build.value }
        try server.fault("mode=none")
        #expect(try await store.listAll(prefix: "c/").isEmpty)
    }
}
