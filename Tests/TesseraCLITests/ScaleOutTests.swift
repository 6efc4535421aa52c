import Foundation
import StorageTestSupport
import TesseraStorage
import Testing

/// Several `tessera serve` processes behind nginx, originals and pyramids in SeaweedFS: what
/// running on many machines asks of them, on one machine's loopback. Everything is started here on
/// 127.0.0.1 with explicit ports and stopped by its PID.
@Suite("Scale-out: tessera serve ×3 behind nginx over SeaweedFS", .seaweedFS, .serialized)
struct ScaleOutTests {
    var seaweed: SeaweedFS { SeaweedFSScope.current! }
    typealias RunningServer = ServeCLITests.RunningServer

    /// nginx as the load balancer: round robin over the servers, a failed connection or a 502/503
    /// retried on the next, and `proxy_cache` with `proxy_cache_lock`, as one would deploy it.
    final class Balancer {
        let process = Process()
        let port: Int
        let directory: String

        init(upstreams: [Int], directory: String) throws {
            self.directory = directory
            port = try RunningServer.freePort()
            for sub in ["cache", "temp"] {
                try FileManager.default.createDirectory(atPath: directory + "/" + sub, withIntermediateDirectories: true)
            }
            let servers = upstreams.map { "server 127.0.0.1:\($0) max_fails=1 fail_timeout=5s;" }.joined(separator: "\n    ")
            let configuration = """
                daemon off;
                worker_processes 1;
                pid \(directory)/nginx.pid;
                error_log \(directory)/error.log warn;
                events { worker_connections 512; }
                http {
                  access_log \(directory)/access.log;
                  client_body_temp_path \(directory)/temp/body;
                  proxy_temp_path \(directory)/temp/proxy;
                  fastcgi_temp_path \(directory)/temp/fastcgi;
                  uwsgi_temp_path \(directory)/temp/uwsgi;
                  scgi_temp_path \(directory)/temp/scgi;
                  proxy_cache_path \(directory)/cache levels=1:2 keys_zone=tiles:4m max_size=256m inactive=10m use_temp_path=off;
                  upstream tessera {
                    \(servers)
                    keepalive 16;
                  }
                  server {
                    listen 127.0.0.1:\(port);
                    location / {
                      proxy_pass http://tessera;
                      proxy_http_version 1.1;
                      proxy_set_header Connection "";
                      proxy_set_header Host $http_host;
                      proxy_next_upstream error timeout http_502 http_503 http_504;
                      proxy_next_upstream_tries 3;
                      proxy_read_timeout 120s;
                      proxy_cache tiles;
                      proxy_cache_lock on;
                      proxy_cache_lock_timeout 120s;
                      proxy_cache_valid 200 10m;
                      add_header X-Upstream $upstream_addr always;
                    }
                  }
                }
                """
            try configuration.write(toFile: directory + "/nginx.conf", atomically: true, encoding: .utf8)
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
            process.arguments = ["-p", directory, "-c", directory + "/nginx.conf"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Listening once a request gets any answer (bounded: 10 s).
            for _ in 0..<200 where (try? ScaleOutTests.statuses(["http://127.0.0.1:\(port)/health"])) == nil {
                usleep(50_000)
            }
        }

        func stop() {
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
        }
    }

    /// The status of each URL, fetched by curl, at most `parallel` at a time (000: no answer).
    static func statuses(_ urls: [String], parallel: Int = 8, headerOf header: String? = nil) throws -> [String] {
        let config = urls.map { "url = \"\($0)\"\noutput = \"/dev/null\"" }.joined(separator: "\n")
        let file = NSTemporaryDirectory() + "curl-\(UUID().uuidString).conf"
        try config.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let format = header.map { "%{http_code} %header{\($0)}\\n" } ?? "%{http_code}\\n"
        let (status, output) = try ServeCLITests.run(
            "/usr/bin/curl",
            [
                "-s", "--no-progress-meter", "--max-time", "180", "--parallel", "--parallel-max", String(parallel), "-w", format, "--config", file,
            ])
        guard status == 0 || status == 7 || status == 28 || status == 52 || status == 56 else {
            throw ServeCLITests.ServeError(message: "curl exited \(status): \(output)")
        }
        let lines = output.split(separator: "\n").map(String.init)
        guard lines.count == urls.count, !lines.contains(where: { $0.hasPrefix("000") }) || urls.count > 1 else {
            throw ServeCLITests.ServeError(message: "no answer")
        }
        return lines
    }

    /// A body, by curl.
    static func body(_ url: String) throws -> Data {
        let file = NSTemporaryDirectory() + "body-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: file) }
        _ = try ServeCLITests.run("/usr/bin/curl", ["-s", "--max-time", "180", "-o", file, url])
        return (try? Data(contentsOf: URL(fileURLWithPath: file))) ?? Data()
    }

    /// `tessera_pyramid_builds_total` of a server.
    /// Returns once `done` holds, asking every 0.1 s for at most 120 s (then the test's own
    /// expectations report what is missing).
    static func poll(_ done: () async throws -> Bool) async throws {
        for _ in 0..<1200 {
            if try await done() { return }
            usleep(100_000)
        }
    }

    static func builds(port: Int) throws -> Int {
        let text = String(decoding: try body("http://127.0.0.1:\(port)/metrics"), as: UTF8.self)
        let line = text.split(separator: "\n").first { $0.hasPrefix("tessera_pyramid_builds_total ") }
        return line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? -1
    }

    /// Build prefixes (`{identity}/{build}`) in the shared store, and the pointers (`{identity}/{pyramid}.pyramid` → build).
    static func storeContents(_ store: S3ObjectStore) async throws -> (builds: Set<String>, pointers: [String: String]) {
        var builds = Set<String>(), pointers: [String: String] = [:]
        for object in try await store.listAll(prefix: "") {
            let parts = object.key.split(separator: "/")
            if parts.count == 2, parts[1].hasSuffix(".pyramid") {
                pointers[object.key] = String(decoding: try await store.get(object.key), as: UTF8.self)
            } else if parts.count > 2, !parts[1].hasSuffix(".lease") {
                builds.insert(parts[0] + "/" + parts[1])
            }
        }
        return (builds, pointers)
    }

    /// A fresh pair of buckets with `images` (name → generated noise JPEG of that size) uploaded,
    /// three servers over them, and nginx in front.
    private func deployment(
        _ name: String, images: [String: (Int, Int)], lease: Int = 30, firstThroughProxy: Bool = false
    ) async throws -> (directory: String, pyramids: S3ObjectStore, servers: [RunningServer], balancer: Balancer) {
        let directory = try ServeCLITests.temporaryDirectory()
        let originals = try await seaweed.store(bucket: "\(name)-originals")
        let pyramids = try await seaweed.store(bucket: "\(name)-pyramids")
        for (image, size) in images {
            try ServeCLITests.makeNoiseImage(at: "\(directory)/\(image)", width: size.0, height: size.1)
            try await originals.put(image, Data(contentsOf: URL(fileURLWithPath: directory + "/" + image)))
        }
        let environment = [
            "AWS_ACCESS_KEY_ID": SeaweedFS.credentials.accessKeyID, "AWS_SECRET_ACCESS_KEY": SeaweedFS.credentials.secretAccessKey,
            "AWS_REGION": "us-east-1", "AWS_ENDPOINT_URL": seaweed.endpoint.absoluteString,
        ]
        // Under `make sanitize` everything runs several times slower: no request here is about the
        // 30-s deadline, so it is lifted there (as ServerSandbox does for in-process servers).
        let deadline = ProcessInfo.processInfo.environment["TESSERA_SANITIZER"] == nil ? [] : ["--request-timeout", "600"]
        let servers = try (0..<3).map { index in
            // The first server may reach the store through the fault proxy (stalls make its build slow).
            var environment = environment
            if index == 0, firstThroughProxy { environment["AWS_ENDPOINT_URL"] = seaweed.proxyEndpoint.absoluteString }
            return try RunningServer(
                root: "s3://\(name)-originals", cache: directory + "/cache-\(index)",
                extra: [
                    "--cache", "s3://\(name)-pyramids", "--lease-seconds", String(lease), "--small-source-pixels", "0",
                    // Every level read by region, so the first tiles start a pyramid's build.
                    "--level-pixels", "0",
                ] + deadline,
                environment: environment)
        }
        let balancer = try Balancer(upstreams: servers.map(\.port), directory: directory + "/nginx")
        return (directory, pyramids, servers, balancer)
    }

    private func tear(down deployment: (directory: String, pyramids: S3ObjectStore, servers: [RunningServer], balancer: Balancer)) {
        deployment.balancer.stop()
        for server in deployment.servers where server.process.isRunning { _ = server.stop() }
        try? FileManager.default.removeItem(atPath: deployment.directory)
    }

    @Test("requests for one unseen image spread over three servers build its pyramid once, and any server serves it")
    func buildOnceServeAnywhere() async throws {
        let deployment = try await deployment("once", images: ["big.jpg": (3000, 2000)])
        defer { tear(down: deployment) }
        let base = "http://127.0.0.1:\(deployment.balancer.port)"
        // Twelve different tiles at once: nginx spreads them over the three servers, each of which
        // needs the same pyramid.
        let tiles = (0..<12).map { "\(base)/iiif/3/big.jpg/\($0 % 6 * 256),\($0 / 6 * 256),256,256/256,/0/default.jpg" }
        let answers = try Self.statuses(tiles, parallel: 12, headerOf: "x-upstream")
        #expect(answers.allSatisfy { $0.hasPrefix("200 ") }, "\(answers)")
        #expect(Set(answers.map { $0.dropFirst(4) }).count >= 2, "one server answered everything: \(answers)")
        // Answered from the source; each server that answered started a build in the background,
        // and one of them made it (bounded wait: 120 s).
        try await Self.poll { try await Self.storeContents(deployment.pyramids).pointers.count == 1 }
        try await Self.poll { try deployment.servers.map { try Self.builds(port: $0.port) }.reduce(0, +) == 1 }
        let contents = try await Self.storeContents(deployment.pyramids)
        #expect(contents.builds.count == 1 && contents.pointers.count == 1, "\(contents)")
        let builds = try deployment.servers.map { try Self.builds(port: $0.port) }
        #expect(builds.reduce(0, +) == 1, "builds by server: \(builds)")
        // Every server answers a tile of it with the same bytes, building nothing more.
        let tile = "/iiif/3/big.jpg/512,512,256,256/256,/0/default.jpg"
        let bodies = try deployment.servers.map { try Self.body("http://127.0.0.1:\($0.port)\(tile)") }
        #expect(
            Set(bodies).count == 1 && bodies[0].count > 1000,
            "\(bodies.map { $0.count > 1000 ? "\($0.count) bytes" : String(decoding: $0, as: UTF8.self) })")
        #expect(try await Self.storeContents(deployment.pyramids).builds == contents.builds)
    }

    @Test("a server killed mid-build: another takes its lease over and finishes; the half-written build is never served")
    func killTheBuilderMidBuild() async throws {
        // The builder reaches the store through the fault proxy, every request stalled 0.3 s: its
        // build takes minutes, not the fraction of a second between a poll of the store and the kill
        // (a clean CI run once saw a 9000×6000 build finish in that gap).
        let deployment = try await deployment("takeover", images: ["huge.jpg": (6000, 4000)], lease: 3, firstThroughProxy: true)
        defer { tear(down: deployment) }
        let (builder, other) = (deployment.servers[0], deployment.servers[1])
        try seaweed.fault("mode=stall&seconds=0.3&count=1000000")
        defer { try? seaweed.fault("mode=none") }
        let tile = "/iiif/3/huge.jpg/0,0,256,256/256,/0/default.jpg"
        let request = Process()
        request.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        request.arguments = ["-s", "-o", "/dev/null", "--max-time", "180", "http://127.0.0.1:\(builder.port)\(tile)"]
        try request.run()
        // Wait (bounded: 120 s) until the builder has uploaded some of its tiles, then kill it.
        var partial: Set<String> = []
        for _ in 0..<1200 where partial.isEmpty {
            partial = try await Self.storeContents(deployment.pyramids).builds
            if partial.isEmpty { usleep(100_000) }
        }
        #expect(partial.count == 1, "the build never started")
        builder.killHard()
        request.waitUntilExit()
        try seaweed.fault("mode=none")
        #expect(try await Self.storeContents(deployment.pyramids).pointers.isEmpty, "the build finished before it was killed")
        // Another server waits out the lease, takes it over and builds its own.
        let answer = try Self.statuses(["http://127.0.0.1:\(other.port)\(tile)"])
        #expect(answer == ["200"])
        // Answered from the source at once; the build waits out the lease in the background (bounded: 120 s).
        try await Self.poll { try await !Self.storeContents(deployment.pyramids).pointers.isEmpty }
        let contents = try await Self.storeContents(deployment.pyramids)
        let pointed = try #require(contents.pointers.values.first)
        #expect(contents.builds.count == 2 && contents.builds.isSuperset(of: partial))
        #expect(!partial.contains { $0.hasSuffix("/" + pointed) }, "the half-written build is pointed to")
        #expect(try Self.builds(port: other.port) == 1)
        // The third server, and nginx, serve the finished pyramid.
        let third = try Self.body("http://127.0.0.1:\(deployment.servers[2].port)\(tile)")
        #expect(third == (try Self.body("http://127.0.0.1:\(other.port)\(tile)")) && third.count > 1000)
        #expect(try Self.statuses(["http://127.0.0.1:\(deployment.balancer.port)\(tile)"]) == ["200"])
    }

    @Test("a server killed under load loses no request: nginx retries it on another")
    func killAServerUnderLoad() async throws {
        let deployment = try await deployment("load", images: ["big.jpg": (3000, 2000)])
        defer { tear(down: deployment) }
        let base = "http://127.0.0.1:\(deployment.balancer.port)"
        #expect(try Self.statuses(["\(base)/iiif/3/big.jpg/0,0,256,256/256,/0/default.jpg"]) == ["200"])
        // 400 distinct regions (each composed from stored tiles, none cached by nginx yet), eight at a
        // time; one server is killed while they run.
        let regions = (0..<400).map { "\(base)/iiif/3/big.jpg/\($0 % 20 * 130),\($0 / 20 * 90),300,200/150,/0/default.jpg" }
        let (log, victim) = (deployment.balancer.directory + "/access.log", deployment.servers[2].process.processIdentifier)
        let killer = Task.detached {
            // After the first answers have come (bounded: 60 s), not before.
            for _ in 0..<600 {
                let lines = (try? String(contentsOfFile: log, encoding: .utf8))?.split(separator: "\n").count ?? 0
                if lines > 60 { break }
                usleep(100_000)
            }
            kill(victim, SIGKILL)
        }
        let answers = try Self.statuses(Array(regions[..<300]), parallel: 8)
        // And after it for certain (the first batch may finish before the kill lands): round robin
        // meets the dead server, and nginx retries on the others.
        await killer.value
        let after = try Self.statuses(Array(regions[300...]), parallel: 8)
        deployment.servers[2].process.waitUntilExit()
        #expect(deployment.servers[2].process.terminationReason == .uncaughtSignal)
        // nginx did meet the dead server (and so retried those requests on the others).
        let errors = (try? String(contentsOfFile: deployment.balancer.directory + "/error.log", encoding: .utf8)) ?? ""
        #expect(errors.contains("127.0.0.1:\(deployment.servers[2].port)"), "\(errors)")
        #expect(
            answers.count + after.count == 400 && (answers + after).allSatisfy { $0 == "200" },
            "\(Dictionary(grouping: answers, by: { $0 }).mapValues(\.count))")
    }
}
