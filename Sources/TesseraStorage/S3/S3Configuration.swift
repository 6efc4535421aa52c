public import FoundationEssentials

/// Where an ``S3ObjectStore`` reads and writes, and how: a bucket and a key prefix on an endpoint,
/// signed with credentials, configured from the environment as the AWS tools are.
public struct S3Configuration: Sendable, Equatable {
    /// How the bucket is named in request URLs.
    public enum Addressing: String, Sendable {
        /// `http://endpoint/bucket/key`: what S3-compatible stores (SeaweedFS, MinIO) expect.
        case path
        /// `https://bucket.endpoint/key`: AWS's default.
        case virtualHost = "virtual"
    }

    /// Scheme, host and port, no path (`http://127.0.0.1:8333`).
    public var endpoint: URL
    /// The AWS region requests are signed for (`us-east-1`); S3-compatible stores mostly accept any.
    public var region: String
    /// The bucket's name.
    public var bucket: String
    /// Prepended to every key, without leading or trailing `/`; may be empty.
    public var prefix: String
    /// The access keys requests are signed with.
    public var credentials: S3Credentials
    /// Whether the bucket is named in the URL's path or its host name.
    public var addressing: Addressing
    /// One attempt of one request, connection to last byte.
    public var requestTimeout: Duration = .seconds(30)
    /// Attempts per request, the first included, when the store answers 5xx or throttles (429,
    /// `SlowDown`) or the connection fails or times out.
    public var maximumAttempts = 4
    /// The pause before the second attempt; doubled for each further one, with jitter.
    public var retryBaseDelay: Duration = .milliseconds(100)
    /// Objects larger than this go up in parts (S3's multipart upload).
    public var multipartThreshold = 16 << 20
    /// Bytes per part (S3's minimum is 5 MiB, except for the last).
    public var partSize = 8 << 20
    /// Parts uploaded at once.
    public var partConcurrency = 4

    /// A configuration from its parts; ``init(location:environment:)`` reads them from an `s3://` URL
    /// and the AWS environment variables instead. Slashes around and doubled inside `prefix` are
    /// dropped. Timeouts, retries and multipart sizes keep their defaults; set the properties to change
    /// them.
    public init(
        endpoint: URL, region: String, bucket: String, prefix: String = "", credentials: S3Credentials,
        addressing: Addressing = .path
    ) {
        self.endpoint = endpoint
        self.region = region
        self.bucket = bucket
        self.prefix = prefix.split(separator: "/").joined(separator: "/")
        self.credentials = credentials
        self.addressing = addressing
    }

    /// True for `s3://…` locations, which ``init(location:environment:)`` reads.
    public static func isS3Location(_ text: String) -> Bool { text.lowercased().hasPrefix("s3://") }

    /// `s3://bucket/prefix` with the rest from `environment`:
    /// - `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` (both required), `AWS_SESSION_TOKEN`;
    /// - `AWS_REGION` or `AWS_DEFAULT_REGION` (default `us-east-1`);
    /// - `AWS_ENDPOINT_URL_S3` or `AWS_ENDPOINT_URL` (default AWS's regional endpoint);
    /// - `TESSERA_S3_ADDRESSING`: `path` or `virtual` (default: path with an endpoint given, as
    ///   S3-compatible stores expect; virtual-host on AWS).
    public init(location: String, environment: [String: String]) throws(ObjectStorageError) {
        guard Self.isS3Location(location) else { throw .badConfiguration("\(location) is not an s3:// location") }
        let path = location.dropFirst(5).split(separator: "/", omittingEmptySubsequences: true)
        guard let bucket = path.first.map(String.init), Self.isValidBucket(bucket) else {
            throw .badConfiguration("\(location) names no valid bucket")
        }
        guard let keyID = environment["AWS_ACCESS_KEY_ID"], !keyID.isEmpty,
            let secret = environment["AWS_SECRET_ACCESS_KEY"], !secret.isEmpty
        else { throw .badConfiguration("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set for \(location)") }
        let region = environment["AWS_REGION"] ?? environment["AWS_DEFAULT_REGION"] ?? "us-east-1"
        let endpointText = environment["AWS_ENDPOINT_URL_S3"] ?? environment["AWS_ENDPOINT_URL"]
        let endpoint: URL
        if let endpointText {
            guard let url = URL(string: endpointText), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
                url.host != nil
            else { throw .badConfiguration("the endpoint \(endpointText) is not an http or https URL") }
            endpoint = url
        } else {
            endpoint = URL(string: "https://s3.\(region).amazonaws.com")!
        }
        let addressing: Addressing
        switch environment["TESSERA_S3_ADDRESSING"] {
        case nil, "": addressing = endpointText == nil ? .virtualHost : .path
        case let value?:
            guard let chosen = Addressing(rawValue: value) else {
                throw .badConfiguration("TESSERA_S3_ADDRESSING must be path or virtual, not \(value)")
            }
            addressing = chosen
        }
        self.init(
            endpoint: endpoint, region: region, bucket: bucket, prefix: path.dropFirst().joined(separator: "/"),
            credentials: S3Credentials(accessKeyID: keyID, secretAccessKey: secret, sessionToken: environment["AWS_SESSION_TOKEN"]),
            addressing: addressing)
    }

    /// `s3://bucket/path/to/object` as a store on the bucket (no prefix) and the object's key.
    public static func object(location: String, environment: [String: String]) throws(ObjectStorageError) -> (S3Configuration, key: String) {
        let configuration = try S3Configuration(location: location, environment: environment)
        guard !configuration.prefix.isEmpty else { throw .badConfiguration("\(location) names a bucket but no object") }
        var bucketOnly = configuration
        bucketOnly.prefix = ""
        return (bucketOnly, configuration.prefix)
    }

    /// S3's bucket naming rules: 3 to 63 lowercase letters, digits, dots and hyphens.
    static func isValidBucket(_ name: String) -> Bool {
        (3...63).contains(name.count) && name.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-" || $0 == ".") }
    }

    /// The key in the bucket for a store key.
    func objectKey(_ key: String) -> String { prefix.isEmpty ? key : prefix + "/" + key }
}
