import AsyncHTTPClient
public import FoundationEssentials
import NIOCore
import NIOHTTP1

/// The default ``DataLoading``: http and https through AsyncHTTPClient (its shared client, which
/// follows up to 5 redirects), file URLs from disk.
public struct HTTPDataLoader: DataLoading {
    /// The whole request, connection to last byte, in seconds.
    public var timeout: TimeInterval
    /// Bodies larger than this many bytes fail with ``ImagePipelineError/responseTooLarge(limit:)``.
    public var maximumResponseSize: Int

    /// A loader with a `timeout` in seconds (30 by default) and a body limit in bytes (256 MiB).
    public init(timeout: TimeInterval = 30, maximumResponseSize: Int = 256 << 20) {
        self.timeout = timeout
        self.maximumResponseSize = maximumResponseSize
    }

    public func loadData(for url: URL, validators: HTTPValidators?) async throws -> FetchedData {
        switch url.scheme?.lowercased() {
        case "file":
            return FetchedData(outcome: .data(try Data(contentsOf: url)))
        case "http", "https":
            return try await loadHTTP(url, validators: validators)
        default:
            throw ImagePipelineError.unsupportedURL(url.absoluteString)
        }
    }

    private func loadHTTP(_ url: URL, validators: HTTPValidators?) async throws -> FetchedData {
        var request = HTTPClientRequest(url: url.absoluteString)
        if let etag = validators?.etag { request.headers.add(name: "If-None-Match", value: etag) }
        if let lastModified = validators?.lastModified { request.headers.add(name: "If-Modified-Since", value: lastModified) }
        let response: HTTPClientResponse
        do {
            response = try await HTTPClient.shared.execute(request, timeout: .milliseconds(Int64(timeout * 1000)))
        } catch {
            throw Self.classify(error)
        }
        let headers = response.headers
        let received = HTTPValidators(etag: headers.first(name: "ETag"), lastModified: headers.first(name: "Last-Modified"))
        let control = FetchedData.cacheControl(headers.first(name: "Cache-Control"))
        if response.status == .notModified, validators != nil {
            return FetchedData(outcome: .notModified, validators: received, noStore: control.noStore, maxAge: control.maxAge)
        }
        guard (200..<300).contains(response.status.code) else {
            throw ImagePipelineError.httpStatus(Int(response.status.code))
        }
        let body: ByteBuffer
        do {
            body = try await response.body.collect(upTo: maximumResponseSize)
        } catch is NIOTooManyBytesError {
            throw ImagePipelineError.responseTooLarge(limit: maximumResponseSize)
        } catch {
            throw Self.classify(error)
        }
        return FetchedData(
            outcome: .data(Data(body.readableBytesView)), validators: received,
            noStore: control.noStore, maxAge: control.maxAge)
    }

    private static func classify(_ error: any Error) -> any Error {
        if error is CancellationError || error is ImagePipelineError { return error }
        if let client = error as? HTTPClientError {
            switch client {
            case .deadlineExceeded, .readTimeout, .connectTimeout, .writeTimeout: return ImagePipelineError.timedOut
            case .cancelled: return CancellationError()
            default: return ImagePipelineError.connectionFailed(String(describing: client))
            }
        }
        return ImagePipelineError.connectionFailed(String(describing: error))
    }
}
