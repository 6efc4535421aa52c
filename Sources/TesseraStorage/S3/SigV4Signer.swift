import FoundationEssentials
import TesseraCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Access keys for S3, as the AWS tools read them from the environment.
public struct S3Credentials: Sendable, Equatable {
    /// The access key's ID (`AWS_ACCESS_KEY_ID`), sent in each request's `Authorization` header.
    public var accessKeyID: String
    /// The secret key (`AWS_SECRET_ACCESS_KEY`) requests are signed with; never sent.
    public var secretAccessKey: String
    /// A temporary session's token (`AWS_SESSION_TOKEN`), sent as `x-amz-security-token`.
    public var sessionToken: String?

    /// Credentials from a key pair and, for temporary credentials, the session's token.
    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }
}

/// AWS Signature Version 4 for S3 requests (header form), as in AWS's "Create a signed AWS API
/// request": a canonical request, its hash in a string to sign, and an HMAC chain from the secret
/// key through date, region and service.
///
/// S3's rules, which differ from other services: the path is percent-encoded once (not twice) and
/// not normalised, and `x-amz-content-sha256` carries the payload's hash. Headers are signed as
/// given (lowercase names, values with runs of spaces folded); `botocore` is the reference the
/// tests compare with.
struct SigV4Signer: Sendable {
    let credentials: S3Credentials
    let region: String
    var service = "s3"

    /// The hex SHA-256 of an empty payload.
    static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// The headers to add to a request: `x-amz-date`, `x-amz-content-sha256`, the session token if
    /// any, and `Authorization`, which signs them together with `headers` (which must include
    /// `host`).
    /// - Parameters:
    ///   - encodedPath: the request's path, already percent-encoded as sent (`/bucket/a%20b.jpg`).
    ///   - query: the query's names and values, not encoded.
    func signedHeaders(
        method: String, encodedPath: String, query: [(String, String)], headers: [(String, String)],
        payloadHash: String, date: Date
    ) -> [(String, String)] {
        let (amzDate, day) = Self.timestamps(date)
        var added: [(String, String)] = [("x-amz-date", amzDate), ("x-amz-content-sha256", payloadHash)]
        if let token = credentials.sessionToken { added.append(("x-amz-security-token", token)) }
        let all = (headers + added).map { (name: $0.0.lowercased(), value: Self.foldSpaces($0.1)) }
            .sorted { $0.name < $1.name }
        let signedNames = all.map(\.name).joined(separator: ";")
        let canonicalRequest = [
            method,
            encodedPath.isEmpty ? "/" : encodedPath,
            Self.canonicalQuery(query),
            all.map { "\($0.name):\($0.value)\n" }.joined(),
            signedNames,
            payloadHash,
        ].joined(separator: "\n")
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, Self.hexSHA256(Array(canonicalRequest.utf8))]
            .joined(separator: "\n")
        var key = Array(("AWS4" + credentials.secretAccessKey).utf8)
        for part in [day, region, service, "aws4_request"] { key = Self.hmac(key, part) }
        let signature = SHA256Digest.hex(Self.hmac(key, stringToSign))
        let authorization =
            "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), "
            + "SignedHeaders=\(signedNames), Signature=\(signature)"
        return added + [("Authorization", authorization)]
    }

    /// `name=value` pairs, both encoded, sorted by name then value, joined by `&`.
    static func canonicalQuery(_ query: [(String, String)]) -> String {
        let encoded: [(name: String, value: String)] = query.map { (encode($0.0), encode($0.1)) }
        let sorted = encoded.sorted { $0.name == $1.name ? $0.value < $1.value : $0.name < $1.name }
        return sorted.map { $0.name + "=" + $0.value }.joined(separator: "&")
    }

    /// RFC 3986 percent-encoding of everything but the unreserved characters (and `/` when
    /// `keepingSlashes`), uppercase hex, as Signature Version 4 requires.
    static func encode(_ text: String, keepingSlashes: Bool = false) -> String {
        var encoded = ""
        for byte in text.utf8 {
            if unreserved.contains(byte) || (keepingSlashes && byte == UInt8(ascii: "/")) {
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                encoded += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 15, radix: 16, uppercase: true)
            }
        }
        return encoded
    }

    private static let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)

    static func hexSHA256(_ bytes: some Collection<UInt8>) -> String {
        // libcrypto is there whenever a signer is made (S3ObjectStore checks); a missing one signs nothing valid.
        SHA256Digest.hex(SHA256Digest.digest(bytes) ?? [])
    }

    private static func hmac(_ key: [UInt8], _ text: String) -> [UInt8] {
        SHA256Digest.hmac(key: key, Array(text.utf8)) ?? []
    }

    /// Trims and folds runs of spaces into one, as the canonical headers want.
    private static func foldSpaces(_ value: String) -> String {
        value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }

    /// `20261124T050102Z` and `20261124`, in UTC.
    static func timestamps(_ date: Date) -> (amzDate: String, day: String) {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let day = "\(parts.tm_year + 1900)" + two(parts.tm_mon + 1) + two(parts.tm_mday)
        return (day + "T" + two(parts.tm_hour) + two(parts.tm_min) + two(parts.tm_sec) + "Z", day)
    }
}
