import Foundation
import StorageTestSupport
import TesseraCodecs
import TesseraCore
import TesseraIIIF
import Testing

@testable import TesseraStorage

@Suite("S3 object store against a real SeaweedFS", .seaweedFS, .serialized)
struct S3ObjectStoreTests {
    var server: SeaweedFS { SeaweedFSScope.current! }

    @Test func keepsTheObjectStoringContract() async throws {
        var store = try await server.store(bucket: "contract")
        store.pageSize = 3
        try await ObjectStoreContract.check(store, pageSize: 3)
    }

    @Test func leasesHoldBetweenProcessesSharingTheStore() async throws {
        try await ObjectLeaseContract.check(try await server.store(bucket: "leases"))
    }

    /// Images read from S3 in ranges decode to the same pixels as from disk, every format, and a
    /// probe of a JPEG of a few megabytes costs a HEAD and one 256 KB range, not the file.
    @Test func imagesStreamFromTheStoreInRanges() async throws {
        let store = try await server.store(bucket: "sources", throughProxy: true)
        let fixtures = SeaweedFS.root.appendingPathComponent("Tests/Fixtures")
        let names = [
            "jpeg-progressive.jpg", "png-adam7-rgba-8.png", "gif-animated.gif", "webp-animated.webp", "heic-basic.heic",
            "tiff-rgba-deflate.tif",
        ]
        for name in names { try await store.put(name, Data(contentsOf: fixtures.appendingPathComponent(name))) }
        var state: UInt32 = 1
        let noise = PixelBuffer(
            width: 1200, height: 1200, format: .rgb8,
            bytes: (0..<(1200 * 1200 * 3)).map { _ in
                state = state &* 1_664_525 &+ 1_013_904_223
                return UInt8(truncatingIfNeeded: state >> 24)
            })
        let big = try ImageEncoder.encode(noise, as: .jpeg(quality: 95))
        #expect(big.count > 4 * 256 << 10)
        try await store.put("big.jpg", big)
        let before = try server.proxyStats()
        let reader = try await ObjectByteRange(store: store, key: "big.jpg")
        let probed = try await WorkExecutor.shared.run { _ in try ImageDecoder().probe(.ranged(reader)) }
        #expect(probed.size == PixelSize(width: 1200, height: 1200))
        let after = try server.proxyStats()
        #expect(after.forwarded - before.forwarded == 2, "a HEAD and one range")
        #expect(after.bytes - before.bytes == 256 << 10, "of a \(big.count)-byte file")
        let options = ThumbnailOptions(maxPixelSize: 64)
        for name in names {
            let local = try await Thumbnailer().thumbnail(.file(fixtures.appendingPathComponent(name).path), options: options)
            let remote = try await Thumbnailer().thumbnail(.ranged(try await ObjectByteRange(store: store, key: name)), options: options)
            #expect(remote.pixels == local.pixels, "\(name)")
        }
        // A missing object, and a store that stops answering mid-read: typed errors, no trap.
        await #expect(throws: ObjectStorageError.notFound(key: "nope.jpg")) { _ = try await ObjectByteRange(store: store, key: "nope.jpg") }
        let broken = try await ObjectByteRange(store: store, key: "jpeg-progressive.jpg")
        try server.fault("mode=status&code=500&count=100")
        await #expect(
            performing: { try await Thumbnailer().thumbnail(.ranged(broken), options: options) },
            throws: { error in
                // The transfer's failure, not a truncated or corrupt file.
                guard case ImageDecodingError.transferFailed = error else { return false }
                return ErrorCategory(of: error) == .network
            })
        try server.fault("mode=none")
        // Failing after the header's range: libjpeg's reads through the FILE fail mid-image.
        let bigReader = try await ObjectByteRange(store: store, key: "big.jpg")
        try server.fault("mode=status&code=500&count=100&after=1")
        await #expect(
            performing: { try await Thumbnailer().thumbnail(.ranged(bigReader), options: options) },
            throws: { error in
                guard case ImageDecodingError.transferFailed = error else { return false }
                return true
            })
        try server.fault("mode=none")
    }

    @Test func aPrefixIsPrependedToEveryKeyAndHiddenFromListings() async throws {
        let prefixed = try await server.store(bucket: "prefixed", prefix: "some/prefix/")
        try await prefixed.put("a/b.txt", Data("hello".utf8))
        let whole = try await server.store(bucket: "prefixed")
        #expect(try await whole.get("some/prefix/a/b.txt") == Data("hello".utf8))
        #expect(try await prefixed.listAll(prefix: "a/").map(\.key) == ["a/b.txt"])
    }

    @Test func largeObjectsGoUpInPartsAndComeBackWhole() async throws {
        var store = try await server.store(bucket: "multipart")
        var configuration = store.configuration
        configuration.multipartThreshold = 6 << 20
        configuration.partSize = 5 << 20
        store = try S3ObjectStore(configuration)
        // Bytes that differ everywhere (so a part put in the wrong place shows), made fast.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let words = (0..<(12 << 17)).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state
        }
        let bytes = words.withUnsafeBytes { Data($0) }
        try await store.put("big.bin", bytes)
        #expect(try await store.head("big.bin")?.size == bytes.count)
        #expect(try await store.get("big.bin") == bytes)
        let across = (5 << 20) - 10..<(5 << 20) + 10
        #expect(try await store.get("big.bin", range: across) == bytes[across], "a range across a part boundary")
    }

    @Test func aWrongSecretIsRefusedNotRetried() async throws {
        _ = try await server.store(bucket: "secrets")
        var configuration = S3Configuration(
            endpoint: server.proxyEndpoint, region: "us-east-1", bucket: "secrets",
            credentials: S3Credentials(accessKeyID: SeaweedFS.credentials.accessKeyID, secretAccessKey: "wrong"))
        configuration.retryBaseDelay = .milliseconds(1)
        let before = try server.proxyStats().forwarded
        await #expect(
            performing: { try await S3ObjectStore(configuration).put("x", Data("x".utf8)) },
            throws: { error in
                guard case ObjectStorageError.serviceError(403, _, _) = error else { return false }
                return true
            })
        #expect(try server.proxyStats().forwarded == before + 1, "a 403 is final: one request")
    }

    @Test func fiveHundredsAndThrottlingAreRetriedUntilTheStoreRecovers() async throws {
        let store = try await server.store(bucket: "faults", throughProxy: true)
        try await store.put("kept", Data("kept".utf8))
        let start = try server.proxyStats()
        try server.fault("mode=status&code=503&count=2")
        try await store.put("k", Data("value".utf8))
        try server.fault("mode=status&code=500&count=3")
        #expect(try await store.get("k") == Data("value".utf8))
        let stats = try server.proxyStats()
        #expect(stats.faulted - start.faulted == 5 && stats.forwarded - start.forwarded == 2)
    }

    @Test func aStoreDownLongerThanTheRetriesGivesAnErrorAndStoresNothing() async throws {
        let store = try await server.store(bucket: "outage", throughProxy: true)
        try server.fault("mode=status&code=503&count=100")
        await #expect(
            performing: { try await store.put("never", Data("x".utf8)) },
            throws: { error in
                guard case ObjectStorageError.serviceError(503, "SlowDown", _) = error else { return false }
                return ErrorCategory(of: error) == .network
            })
        #expect(try server.proxyStats().faulted >= 4)
        try server.fault("mode=none")
        #expect(try await store.head("never") == nil, "a failed put leaves nothing")
        try await store.put("later", Data("y".utf8))
        #expect(try await store.get("later") == Data("y".utf8), "and the store works again once it recovers")
    }

    @Test func droppedConnectionsAndStallsAreRetried() async throws {
        var store = try await server.store(bucket: "drops", throughProxy: true)
        try await store.put("k", Data("value".utf8))
        try server.fault("mode=drop&count=2")
        #expect(try await store.get("k") == Data("value".utf8))
        var configuration = store.configuration
        configuration.requestTimeout = .seconds(1)
        store = try S3ObjectStore(configuration)
        try server.fault("mode=stall&seconds=3&count=1")
        #expect(try await store.get("k") == Data("value".utf8))
    }
}
