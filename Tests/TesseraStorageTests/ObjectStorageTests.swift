import Foundation
import TesseraCore
import Testing

@testable import TesseraStorage

@Suite("Object storage: signing, keys, configuration, the file store")
struct ObjectStorageTests {
    static let exampleCredentials = S3Credentials(
        accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")

    /// AWS's own worked example ("Authenticating Requests: Using the Authorization Header", GET
    /// Object): the documented signature, byte for byte.
    @Test func theDocumentedS3ExampleSignsAsAWSSays() throws {
        let signer = SigV4Signer(credentials: Self.exampleCredentials, region: "us-east-1")
        let headers = signer.signedHeaders(
            method: "GET", encodedPath: "/test.txt", query: [],
            headers: [("Host", "examplebucket.s3.amazonaws.com"), ("Range", "bytes=0-9")],
            payloadHash: SigV4Signer.emptyPayloadHash, date: Date(timeIntervalSince1970: 1_369_353_600))  // 2013-05-24
        let authorization = try #require(headers.first { $0.0 == "Authorization" }?.1)
        #expect(
            authorization == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
                + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
                + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
        #expect(headers.contains { $0 == ("x-amz-date", "20130524T000000Z") })
    }

    /// botocore, the AWS SDK's signer, signs the same requests to the same header: keys that need
    /// encoding, queries that need sorting, a session token, virtual-host addressing, payloads.
    @Test func signaturesMatchBotocore() throws {
        struct Case {
            var method: String, host: String, path: String, query: [(String, String)], headers: [(String, String)]
            var payload: Data, credentials: S3Credentials, region: String
        }
        let token = S3Credentials(accessKeyID: "ASIAEXAMPLE", secretAccessKey: "secret/with+chars=", sessionToken: "FwoGZXIvYXdzEJr//token==")
        let cases = [
            Case(
                method: "GET", host: "127.0.0.1:8333", path: "/tiles/a b/ünïcode+plus&amp=.jpg", query: [],
                headers: [("Range", "bytes=100-199")], payload: Data(), credentials: Self.exampleCredentials, region: "us-east-1"),
            Case(
                method: "GET", host: "127.0.0.1:8333", path: "/tiles",
                query: [("prefix", "p/q r"), ("list-type", "2"), ("max-keys", "1000"), ("continuation-token", "a+b/c=")],
                headers: [], payload: Data(), credentials: Self.exampleCredentials, region: "eu-west-3"),
            Case(
                method: "PUT", host: "bucket.s3.eu-central-1.amazonaws.com", path: "/dzi_files/0/0_0.jpeg", query: [],
                headers: [("If-None-Match", "*"), ("Content-Type", "image/jpeg"), ("X-Amz-Meta-Note", "  two   spaces  ")],
                payload: Data((0..<1000).map { UInt8($0 % 251) }), credentials: token, region: "eu-central-1"),
            Case(
                method: "POST", host: "localhost:9000", path: "/b/big.bin", query: [("uploads", "")], headers: [],
                payload: Data(), credentials: Self.exampleCredentials, region: "us-east-1"),
            Case(
                method: "PUT", host: "localhost:9000", path: "/b/big.bin", query: [("uploadId", "2~abc/def"), ("partNumber", "10")],
                headers: [], payload: Data("part".utf8), credentials: Self.exampleCredentials, region: "us-east-1"),
        ]
        let date = Date(timeIntervalSince1970: 1_795_496_462)
        var ours: [String] = []
        var requests: [[String: Any]] = []
        for item in cases {
            let signer = SigV4Signer(credentials: item.credentials, region: item.region)
            let encodedPath = item.path.split(separator: "/", omittingEmptySubsequences: false)
                .map { SigV4Signer.encode(String($0)) }.joined(separator: "/")
            let payloadHash = SigV4Signer.hexSHA256(item.payload)
            let headers = [("Host", item.host)] + item.headers
            let signed = signer.signedHeaders(
                method: item.method, encodedPath: encodedPath, query: item.query, headers: headers, payloadHash: payloadHash, date: date)
            ours.append(try #require(signed.first { $0.0 == "Authorization" }?.1))
            let query = SigV4Signer.canonicalQuery(item.query)
            requests.append([
                "method": item.method, "url": "http://\(item.host)\(encodedPath)" + (query.isEmpty ? "" : "?" + query),
                "headers": headers.map { [$0.0, $0.1] }, "payloadHash": payloadHash, "amzDate": SigV4Signer.timestamps(date).amzDate,
                "accessKeyID": item.credentials.accessKeyID, "secretAccessKey": item.credentials.secretAccessKey,
                "sessionToken": item.credentials.sessionToken as Any, "region": item.region,
            ])
        }
        let reference = try Self.botocore(requests)
        #expect(reference.count == ours.count)
        for (index, (mine, theirs)) in zip(ours, reference).enumerated() {
            #expect(mine == theirs, "case \(index)")
        }
    }

    static func botocore(_ requests: [[String: Any]]) throws -> [String] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let process = Process()
        process.executableURL = root.appendingPathComponent(".build/tools-venv/bin/python")
        process.arguments = [root.appendingPathComponent("scripts/sigv4-reference.py").path]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: requests))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "scripts/sigv4-reference.py failed (run scripts/bootstrap.sh)")
        return try JSONDecoder().decode([String].self, from: data)
    }

    @Test(arguments: ["", "/a", "a/", "a//b", "./a", "a/../b", "..", "a/./b", "a\nb", String(repeating: "k", count: 901)])
    func keysThatCouldEscapeOrMeanTwoThingsAreRefused(_ key: String) async throws {
        let store = FileObjectStore(root: NSTemporaryDirectory())
        await #expect(throws: ObjectStorageError.invalidKey(key)) { try await store.put(key, Data("x".utf8)) }
        await #expect(throws: ObjectStorageError.invalidKey(key)) { _ = try await store.get(key) }
    }

    @Test func s3LocationsReadTheEnvironmentAsTheAWSToolsDo() throws {
        let keys = ["AWS_ACCESS_KEY_ID": "id", "AWS_SECRET_ACCESS_KEY": "secret"]
        let aws = try S3Configuration(location: "s3://my-bucket/some/prefix/", environment: keys.merging(["AWS_REGION": "eu-west-1"]) { $1 })
        #expect(aws.bucket == "my-bucket" && aws.prefix == "some/prefix" && aws.region == "eu-west-1")
        #expect(aws.endpoint.absoluteString == "https://s3.eu-west-1.amazonaws.com" && aws.addressing == .virtualHost)
        let local = try S3Configuration(
            location: "s3://tiles", environment: keys.merging(["AWS_ENDPOINT_URL": "http://127.0.0.1:8333"]) { $1 })
        #expect(local.prefix == "" && local.region == "us-east-1" && local.addressing == .path)
        #expect(local.objectKey("a/b.jpg") == "a/b.jpg" && aws.objectKey("a/b.jpg") == "some/prefix/a/b.jpg")
        #expect(throws: ObjectStorageError.self) { try S3Configuration(location: "s3://tiles", environment: [:]) }
        #expect(throws: ObjectStorageError.self) { try S3Configuration(location: "s3://Bad_Bucket/x", environment: keys) }
        #expect(throws: ObjectStorageError.self) {
            try S3Configuration(location: "s3://tiles", environment: keys.merging(["AWS_ENDPOINT_URL": "ftp://x"]) { $1 })
        }
    }

    @Test func theFileStoreKeepsTheObjectStoringContract() async throws {
        let root = NSTemporaryDirectory() + "tessera-objects-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        var store = FileObjectStore(root: root)
        store.pageSize = 3
        try await ObjectStoreContract.check(store, pageSize: 3)
        // Nothing hidden is left behind: temporary files were renamed or removed.
        let leftovers = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String }.filter { $0.contains(".tessera-") }
        #expect(leftovers == [])
    }

    @Test func leasesOnTheFileStore() async throws {
        let root = NSTemporaryDirectory() + "tessera-leases-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await ObjectLeaseContract.check(FileObjectStore(root: root))
    }

    @Test func xmlTextIsUnescaped() {
        #expect(S3XML.unescape("a &amp; b &lt;c&gt; &quot;d&quot; &apos;e&apos; &#233;&#x263A; &bogus; &") == "a & b <c> \"d\" 'e' é☺ &bogus; &")
        #expect(S3XML.element("Key", in: "<Contents><Key>x&amp;y</Key></Contents>") == "x&y")
        #expect(S3XML.elements("Contents", in: "<Contents><Key>1</Key></Contents><Contents><Key>2</Key></Contents>").count == 2)
    }

    @Test func datesFromListingsAndHeaders() {
        #expect(S3ObjectStore.isoDate("2026-11-24T05:01:02.000Z") == Date(timeIntervalSince1970: 1_795_496_462))
        #expect(S3ObjectStore.httpDate("Tue, 24 Nov 2026 05:01:02 GMT") == Date(timeIntervalSince1970: 1_795_496_462))
        #expect(S3ObjectStore.isoDate("garbage") == nil)
    }
}

/// What every ``ObjectStoring`` must do, checked the same way on each store.
enum ObjectStoreContract {
    /// `store` must list `pageSize` (under 7) objects per page.
    static func check(_ store: some ObjectStoring, pageSize: Int, prefix base: String = "contract-" + UUID().uuidString) async throws {
        let bytes = Data((0..<5000).map { UInt8($0 % 253) })
        let key = base + "/dir/obj ect+ü.bin"
        #expect(try await store.head(key) == nil)
        await #expect(throws: ObjectStorageError.notFound(key: key)) { _ = try await store.get(key) }
        try await store.put(key, bytes, contentType: "application/octet-stream")
        #expect(try await store.get(key) == bytes)
        #expect(try await store.head(key)?.size == 5000)
        #expect(try await store.get(key, range: 100..<200) == bytes[100..<200])
        #expect(try await store.get(key, range: 4990..<6000) == bytes[4990...], "a range past the end is clipped")
        #expect(try await store.get(key, range: 5000..<5100).isEmpty, "a range after the end is empty")
        // Replacing is whole.
        try await store.put(key, Data("new".utf8))
        #expect(try await store.get(key) == Data("new".utf8))
        // Conditional create: one winner.
        let lease = base + "/lease"
        #expect(try await store.create(lease, Data("first".utf8), contentType: nil) == true)
        #expect(try await store.create(lease, Data("second".utf8), contentType: nil) == false)
        #expect(try await store.get(lease) == Data("first".utf8))
        // Listing: in key order, page by page, only under the prefix.
        let names = (0..<7).map { "\(base)/list/\($0)" }
        for name in names { try await store.put(name, Data(name.utf8)) }
        try await store.put(base + "/listing-not", Data())
        let listed = try await store.listAll(prefix: base + "/list/")
        #expect(listed.map(\.key) == names)
        #expect(listed.allSatisfy { $0.size == $0.key.utf8.count })
        #expect(try await store.listAll(prefix: base + "/list/", limit: 4).count == 4)
        let first = try await store.list(prefix: base + "/list/", continuation: nil)
        #expect(first.objects.map(\.key) == Array(names.prefix(pageSize)) && first.continuation != nil, "pages of \(pageSize)")
        // Delete, twice.
        for name in names + [key, lease, base + "/listing-not"] {
            try await store.delete(name)
            try await store.delete(name)
        }
        #expect(try await store.listAll(prefix: base + "/").isEmpty)
    }
}

/// What leases must do on every store.
enum ObjectLeaseContract {
    static func check(_ store: some ObjectStoring, name base: String = "lease-" + UUID().uuidString) async throws {
        // One holder at a time; the other learns who holds it.
        let a = ObjectLeases(store: store, duration: .seconds(30), owner: "a")
        let b = ObjectLeases(store: store, duration: .seconds(30), owner: "b")
        guard case .acquired(let first) = try await a.acquire(base) else { Issue.record("a did not acquire"); return }
        #expect(try await b.acquire(base) == .held(owner: "a"))
        // Released, it is free at once.
        try await a.release(first)
        guard case .acquired(let second) = try await b.acquire(base) else { Issue.record("b did not acquire"); return }
        try await b.release(second)

        // A holder that stops renewing loses the lease once others have seen it stand `duration`.
        let quick = base + "-lapse"
        let holder = ObjectLeases(store: store, duration: .milliseconds(300), owner: "holder")
        let taker = ObjectLeases(store: store, duration: .milliseconds(300), owner: "taker")
        guard case .acquired(let stale) = try await holder.acquire(quick) else { Issue.record("holder did not acquire"); return }
        #expect(try await taker.acquire(quick) == .held(owner: "holder"), "first sight starts the taker's clock")
        try await Task.sleep(for: .milliseconds(350))
        guard case .acquired(let taken) = try await taker.acquire(quick) else { Issue.record("no takeover"); return }
        #expect(taken.generation == stale.generation + 1)
        await #expect(throws: ObjectLeaseError.lost(name: quick)) { _ = try await holder.renew(stale) }
        try await taker.release(taken)

        // A renewal restarts the watcher's clock: however long it then waits, it has not seen the
        // new generation stand for `duration` until it has seen it (no timing bound: sleeps only
        // guarantee a minimum).
        let renewed = base + "-renewed"
        guard case .acquired(let before) = try await holder.acquire(renewed) else { Issue.record("holder did not acquire"); return }
        #expect(try await taker.acquire(renewed) == .held(owner: "holder"))
        let after = try await holder.renew(before)
        try await Task.sleep(for: .milliseconds(350))
        #expect(try await taker.acquire(renewed) == .held(owner: "holder"), "first sight of the renewed generation")
        try await Task.sleep(for: .milliseconds(350))
        guard case .acquired(let takenAfter) = try await taker.acquire(renewed) else { Issue.record("no takeover"); return }
        #expect(takenAfter.generation == after.generation + 1)

        // `holding` renews while its body runs (the body waits, boundedly, to see two renewals),
        // and releases after.
        let live = base + "-live"
        let owner = ObjectLeases(store: store, duration: .milliseconds(300), owner: "owner")
        guard case .acquired(let held) = try await owner.acquire(live) else { Issue.record("owner did not acquire"); return }
        let renewals = try await owner.holding(held) {
            for _ in 0..<400 {
                let generations = try await store.listAll(prefix: live + ".lease/").compactMap { Int($0.key.split(separator: "/").last ?? "") }
                if let newest = generations.max(), newest >= held.generation + 2 { return newest - held.generation }
                try await Task.sleep(for: .milliseconds(50))
            }
            return 0
        }
        #expect(renewals >= 2)
        guard case .acquired(let free) = try await taker.acquire(live) else { Issue.record("not released"); return }
        try await taker.release(free)

        // A holder whose lease is taken over learns it at its next renewal: its body is cancelled.
        let lost = base + "-lost"
        guard case .acquired(let doomed) = try await owner.acquire(lost) else { Issue.record("owner did not acquire"); return }
        await #expect(throws: ObjectLeaseError.lost(name: lost)) {
            _ = try await owner.holding(doomed) {
                // Another server creates the next generation, as a takeover would.
                #expect(
                    try await store.create(lost + ".lease/" + String(format: "%012d", doomed.generation + 1), Data("thief".utf8), contentType: nil))
                try await Task.sleep(for: .seconds(3600))  // cancelled by the failed renewal
                return 0
            }
        }

        // Many racing for a free name: exactly one wins.
        let race = base + "-race"
        let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<8 {
                group.addTask {
                    if case .acquired = try await ObjectLeases(store: store, owner: "racer\(index)").acquire(race) { return true }
                    return false
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(winners == 1)
    }
}
