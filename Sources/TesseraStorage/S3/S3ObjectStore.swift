import AsyncHTTPClient
public import FoundationEssentials
import NIOCore
import NIOHTTP1
import TesseraCore

/// An ``ObjectStoring`` on S3 or any S3-compatible service (SeaweedFS, MinIO, Ceph), spoken over
/// AsyncHTTPClient and signed with `SigV4Signer`: no SDK.
///
/// - Byte ranges are `Range` requests; listings are `ListObjectsV2`, page by page.
/// - ``create(_:_:contentType:)`` is a `PUT` with `If-None-Match: *`: S3 answers 412 when the key
///   exists, which is what makes a lease object safe between servers.
/// - Objects over ``S3Configuration/multipartThreshold`` go up in parts, a few at once; a failed
///   upload is aborted so no parts linger.
/// - Every request is retried, with exponential backoff and jitter, when the service answers 5xx
///   or throttles (429, `SlowDown`) or the connection fails or times out; each attempt is signed
///   afresh. Other answers (403, 404, 412) are final.
public struct S3ObjectStore: ObjectStoring {
    /// The endpoint, bucket, prefix and credentials every request uses.
    public let configuration: S3Configuration
    private let signer: SigV4Signer
    /// The most bytes one `get` returns; larger objects must be read in ranges.
    public var maximumResponseByteCount = 512 << 20
    /// Objects per ``list(prefix:continuation:)`` page (S3's `max-keys`; at most 1000).
    public var pageSize = 1000

    /// One client for every store: its read timeout bounds a stalled body too, which a request's
    /// deadline alone does not. It lives as long as the process, so it is never shut down.
    private static let client = HTTPClient(
        eventLoopGroupProvider: .singleton,
        configuration: HTTPClient.Configuration(
            timeout: HTTPClient.Configuration.Timeout(connect: .seconds(10), read: .seconds(30))))

    /// A store for `configuration`. Nothing is sent until the first request.
    /// - Throws: ``ObjectStorageError/badConfiguration(_:)`` when requests cannot be signed (the system's
    ///   libcrypto, loaded on first use, is missing).
    public init(_ configuration: S3Configuration) throws(ObjectStorageError) {
        if let reason = SHA256Digest.unavailableReason { throw .badConfiguration("cannot sign requests: \(reason)") }
        self.configuration = configuration
        signer = SigV4Signer(credentials: configuration.credentials, region: configuration.region)
    }

    // MARK: - ObjectStoring

    public func get(_ key: String, range: Range<Int>?) async throws -> Data {
        try ObjectKey.validate(key)
        if let range, range.isEmpty { return Data() }
        var headers: [(String, String)] = []
        if let range { headers.append(("Range", "bytes=\(max(range.lowerBound, 0))-\(range.upperBound - 1)")) }
        let response = try await send(.GET, key: key, headers: headers, accepting: [200, 206, 404, 416])
        switch response.status {
        case 404: throw ObjectStorageError.notFound(key: key)
        case 416: return Data()  // the range starts at or after the end
        case 200 where range != nil:
            // A service that ignores Range sends everything: cut what was asked for.
            let whole = response.body
            return whole.subdata(in: range!.clamped(to: 0..<whole.count))
        default: return response.body
        }
    }

    public func head(_ key: String) async throws -> ObjectMetadata? {
        try ObjectKey.validate(key)
        let response = try await send(.HEAD, key: key, accepting: [200, 404])
        guard response.status == 200 else { return nil }
        return ObjectMetadata(
            key: key, size: response.headers.first(name: "Content-Length").flatMap { Int($0) } ?? 0,
            etag: response.headers.first(name: "ETag"),
            lastModified: response.headers.first(name: "Last-Modified").flatMap(Self.httpDate))
    }

    public func put(_ key: String, _ data: Data, contentType: String?) async throws {
        try ObjectKey.validate(key)
        if data.count > configuration.multipartThreshold {
            try await putInParts(key, data, contentType: contentType)
            return
        }
        var headers: [(String, String)] = []
        if let contentType { headers.append(("Content-Type", contentType)) }
        _ = try await send(.PUT, key: key, headers: headers, body: data, accepting: [200])
    }

    public func create(_ key: String, _ data: Data, contentType: String?) async throws -> Bool {
        try ObjectKey.validate(key)
        var headers: [(String, String)] = [("If-None-Match", "*")]
        if let contentType { headers.append(("Content-Type", contentType)) }
        // 409 is S3's "a conditional write to this key is in progress": the other writer wins.
        let response = try await send(.PUT, key: key, headers: headers, body: data, accepting: [200, 409, 412])
        return response.status == 200
    }

    public func list(prefix: String, continuation: String?) async throws -> ObjectListing {
        try ObjectKey.validate(prefix: prefix)
        // objectKey("") is the prefix itself.
        var query = [("list-type", "2"), ("max-keys", String(pageSize)), ("prefix", configuration.objectKey(prefix))]
        if let continuation { query.append(("continuation-token", continuation)) }
        let response = try await send(.GET, key: nil, query: query, accepting: [200])
        let text = String(decoding: response.body, as: UTF8.self)
        let strip = configuration.prefix.isEmpty ? 0 : configuration.prefix.count + 1
        var objects: [ObjectMetadata] = []
        for entry in S3XML.elements("Contents", in: text) {
            guard let fullKey = S3XML.element("Key", in: entry), fullKey.count > strip,
                let size = S3XML.element("Size", in: entry).flatMap({ Int($0) })
            else { throw ObjectStorageError.invalidResponse("a listing entry without a key or size") }
            objects.append(
                ObjectMetadata(
                    key: String(fullKey.dropFirst(strip)), size: size, etag: S3XML.element("ETag", in: entry),
                    lastModified: S3XML.element("LastModified", in: entry).flatMap(Self.isoDate)))
        }
        let truncated = S3XML.element("IsTruncated", in: text) == "true"
        let next = truncated ? S3XML.element("NextContinuationToken", in: text) : nil
        if truncated, next == nil { throw ObjectStorageError.invalidResponse("a truncated listing without a continuation token") }
        return ObjectListing(objects: objects, continuation: next)
    }

    public func delete(_ key: String) async throws {
        try ObjectKey.validate(key)
        _ = try await send(.DELETE, key: key, accepting: [200, 204, 404])
    }

    /// Creates the bucket if there is none (for tests and first runs); one that exists already,
    /// and is this account's, is fine.
    public func createBucket() async throws {
        let response = try await send(.PUT, key: nil, accepting: [200, 409])
        if response.status == 409 {
            let code = S3XML.element("Code", in: String(decoding: response.body, as: UTF8.self)) ?? ""
            guard code == "BucketAlreadyOwnedByYou" else {
                throw ObjectStorageError.serviceError(status: 409, code: code, key: configuration.bucket)
            }
        }
    }

    // MARK: - Multipart upload

    private func putInParts(_ key: String, _ data: Data, contentType: String?) async throws {
        var headers: [(String, String)] = []
        if let contentType { headers.append(("Content-Type", contentType)) }
        let started = try await send(.POST, key: key, query: [("uploads", "")], headers: headers, accepting: [200])
        guard let uploadID = S3XML.element("UploadId", in: String(decoding: started.body, as: UTF8.self)) else {
            throw ObjectStorageError.invalidResponse("no UploadId for \(key)")
        }
        do {
            let partSize = max(configuration.partSize, 5 << 20)
            let ranges = stride(from: 0, to: data.count, by: partSize).map { $0..<min($0 + partSize, data.count) }
            var etags = [String](repeating: "", count: ranges.count)
            try await withThrowingTaskGroup(of: (Int, String).self) { group in
                var next = 0
                func startPart() {
                    let index = next
                    next += 1
                    let part = data.subdata(in: ranges[index])
                    group.addTask {
                        let response = try await send(
                            .PUT, key: key, query: [("partNumber", String(index + 1)), ("uploadId", uploadID)], body: part,
                            accepting: [200])
                        guard let etag = response.headers.first(name: "ETag") else {
                            throw ObjectStorageError.invalidResponse("no ETag for part \(index + 1) of \(key)")
                        }
                        return (index, etag)
                    }
                }
                while next < min(configuration.partConcurrency, ranges.count) { startPart() }
                while let (index, etag) = try await group.next() {
                    etags[index] = etag
                    if next < ranges.count { startPart() }
                }
            }
            let parts = etags.enumerated().map { "<Part><PartNumber>\($0.offset + 1)</PartNumber><ETag>\(S3XML.escape($0.element))</ETag></Part>" }
            let body = Data(("<CompleteMultipartUpload>" + parts.joined() + "</CompleteMultipartUpload>").utf8)
            let completed = try await send(.POST, key: key, query: [("uploadId", uploadID)], body: body, accepting: [200])
            // S3 may answer 200 and still fail, with an <Error> in the body.
            let answer = String(decoding: completed.body, as: UTF8.self)
            if answer.contains("<Error>") {
                throw ObjectStorageError.serviceError(status: 200, code: S3XML.element("Code", in: answer) ?? "Error", key: key)
            }
        } catch {
            // Parts of an unfinished upload are stored (and billed) until aborted.
            _ = try? await send(.DELETE, key: key, query: [("uploadId", uploadID)], accepting: [200, 204, 404])
            throw error
        }
    }

    // MARK: - Requests

    struct Response {
        var status: Int
        var headers: HTTPHeaders
        var body: Data
    }

    /// Sends a signed request, retrying what may succeed later, and returns the first response whose
    /// status is in `accepting`.
    /// - Throws: ``ObjectStorageError/serviceError(status:code:key:)`` for any other status, or
    ///   ``ObjectStorageError/unreachable(_:)`` when every attempt failed to connect or timed out.
    private func send(
        _ method: HTTPMethod, key: String?, query: [(String, String)] = [], headers: [(String, String)] = [],
        body: Data? = nil, accepting: Set<Int>
    ) async throws -> Response {
        let (url, host, encodedPath) = location(for: key, query: query)
        let payloadHash = body.map { SigV4Signer.hexSHA256($0) } ?? SigV4Signer.emptyPayloadHash
        let name = key ?? "the bucket listing"
        var attempt = 0
        while true {
            attempt += 1
            try Task.checkCancellation()
            var request = HTTPClientRequest(url: url)
            request.method = method
            var all = headers + [("Host", host)]
            all += signer.signedHeaders(
                method: method.rawValue, encodedPath: encodedPath, query: query, headers: all, payloadHash: payloadHash,
                date: Date())
            for (headerName, value) in all { request.headers.add(name: headerName, value: value) }
            if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
            let outcome: Result<Response, ObjectStorageError>
            do {
                let response = try await Self.client.execute(request, timeout: .nanoseconds(configuration.requestTimeout.nanoseconds))
                let limit = method == .GET && key != nil ? maximumResponseByteCount : 1 << 20
                let collected = try await response.body.collect(upTo: limit)
                outcome = .success(Response(status: Int(response.status.code), headers: response.headers, body: Data(collected.readableBytesView)))
            } catch is NIOTooManyBytesError {
                throw ObjectStorageError.serviceError(status: 200, code: "ResponseTooLarge", key: name)
            } catch let error as HTTPClientError where error == .cancelled {
                throw CancellationError()
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                outcome = .failure(.unreachable(String(describing: error)))
            }
            switch outcome {
            case .success(let response) where accepting.contains(response.status):
                return response
            case .success(let response):
                let code = S3XML.element("Code", in: String(decoding: response.body, as: UTF8.self)) ?? "HTTP\(response.status)"
                let retriable = [500, 502, 503, 504, 429].contains(response.status) || code == "SlowDown" || code == "RequestTimeout"
                guard retriable, attempt < configuration.maximumAttempts else {
                    throw ObjectStorageError.serviceError(status: response.status, code: code, key: name)
                }
            case .failure(let error):
                guard attempt < configuration.maximumAttempts else { throw error }
            }
            // Exponential backoff with full jitter (AWS's recommendation), at least a millisecond.
            let ceiling = configuration.retryBaseDelay.nanoseconds << (attempt - 1)
            try await Task.sleep(nanoseconds: UInt64(max(1_000_000, Int64.random(in: 0...max(ceiling, 1)))))
        }
    }

    /// The URL to send, the `Host` header, and the path as signed.
    private func location(for key: String?, query: [(String, String)]) -> (url: String, host: String, path: String) {
        let endpoint = configuration.endpoint
        let scheme = endpoint.scheme?.lowercased() ?? "https"
        var host = endpoint.host ?? ""
        if host.contains(":") { host = "[" + host + "]" }  // IPv6
        let defaultPort = scheme == "https" ? 443 : 80
        if let port = endpoint.port, port != defaultPort { host += ":\(port)" }
        var path = ""
        if configuration.addressing == .path {
            path = "/" + SigV4Signer.encode(configuration.bucket)
        } else {
            host = configuration.bucket + "." + host
        }
        if let key { path += "/" + SigV4Signer.encode(configuration.objectKey(key), keepingSlashes: true) }
        if path.isEmpty { path = "/" }
        let queryText = SigV4Signer.canonicalQuery(query)
        return (scheme + "://" + host + path + (queryText.isEmpty ? "" : "?" + queryText), host, path)
    }

    // MARK: - Dates

    /// `2026-11-24T05:01:02.000Z` (listings), read as the HTTP date of the same moment.
    static func isoDate(_ text: String) -> Date? {
        let digits = text.unicodeScalars.filter { $0.properties.numericType != nil }.map { Int($0.value) - 48 }
        guard digits.count >= 14 else { return nil }
        func number(_ range: Range<Int>, _ width: Int) -> String {
            let value = digits[range].reduce(0) { $0 * 10 + $1 }
            return String(repeating: "0", count: max(0, width - String(value).count)) + String(value)
        }
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard let month = Int(number(4..<6, 2)), (1...12).contains(month) else { return nil }
        // The weekday is not checked by HTTPDate; any name fills its place.
        return httpDate(
            "Mon, \(number(6..<8, 2)) \(months[month - 1]) \(number(0..<4, 4)) \(number(8..<10, 2)):\(number(10..<12, 2)):\(number(12..<14, 2)) GMT")
    }

    /// `Tue, 24 Nov 2026 05:01:02 GMT` (`Last-Modified`).
    static func httpDate(_ text: String) -> Date? {
        HTTPDate.seconds(from: text).map { Date(timeIntervalSince1970: Double($0)) }
    }
}

extension Duration {
    fileprivate var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}

/// The little XML S3 answers with: listings, upload IDs, error codes. Elements are found by name
/// (none of those read nest in themselves) and their text unescaped.
enum S3XML {
    /// The raw contents of every `<name>…</name>`.
    static func elements(_ name: String, in text: String) -> [Substring] {
        var found: [Substring] = []
        var rest = text[...]
        while let open = rest.firstRange(of: "<\(name)>"), let close = rest[open.upperBound...].firstRange(of: "</\(name)>") {
            found.append(rest[open.upperBound..<close.lowerBound])
            rest = rest[close.upperBound...]
        }
        return found
    }

    /// The unescaped text of the first `<name>…</name>`.
    static func element(_ name: String, in text: some StringProtocol) -> String? {
        elements(name, in: String(text)).first.map { unescape(String($0)) }
    }

    static func unescape(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var result = ""
        var rest = text[...]
        while let amp = rest.firstIndex(of: "&") {
            result += rest[..<amp]
            guard let semicolon = rest[amp...].firstIndex(of: ";"), rest.distance(from: amp, to: semicolon) <= 10 else {
                result += rest[amp...]
                return result
            }
            let entity = rest[rest.index(after: amp)..<semicolon]
            switch entity {
            case "amp": result += "&"
            case "lt": result += "<"
            case "gt": result += ">"
            case "quot": result += "\""
            case "apos": result += "'"
            default:
                let number =
                    entity.hasPrefix("#x") ? UInt32(entity.dropFirst(2), radix: 16) : entity.hasPrefix("#") ? UInt32(entity.dropFirst()) : nil
                if let scalar = number.flatMap(Unicode.Scalar.init) { result.unicodeScalars.append(scalar) } else { result += "&\(entity);" }
            }
            rest = rest[rest.index(after: semicolon)...]
        }
        return result + rest
    }

    static func escape(_ text: String) -> String {
        text.replacing("&", with: "&amp;").replacing("<", with: "&lt;").replacing(">", with: "&gt;").replacing("\"", with: "&quot;")
    }
}
