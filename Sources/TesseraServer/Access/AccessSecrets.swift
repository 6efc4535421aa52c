import CTesseraCrypto
import FoundationEssentials
import TesseraCore

/// The cryptography access control needs, through the system's libcrypto (CTesseraCrypto.h says
/// why not swift-crypto): HMAC-SHA256, scrypt, random bytes, URL-safe base64 and a comparison in
/// constant time; and the small files the policy names, read whole.
enum AccessSecrets {
    /// HMAC-SHA256 of `message` under `key`.
    static func hmac(key: [UInt8], _ message: String) throws -> [UInt8] {
        guard let digest = SHA256Digest.hmac(key: key, Array(message.utf8)) else { throw unavailable() }
        return digest
    }

    /// `count` cryptographically random bytes.
    static func randomBytes(_ count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        guard tessera_random_bytes(&bytes, count, nil, 0) == 0 else { throw unavailable() }
        return bytes
    }

    /// scrypt (RFC 7914) of `password` under `salt`, N = 2^`logN`: 32 bytes.
    static func scrypt(_ password: String, salt: [UInt8], logN: Int, r: Int, p: Int) throws -> [UInt8] {
        var key = [UInt8](repeating: 0, count: 32)
        let password = Array(password.utf8)
        let status = password.withUnsafeBytes { password in
            salt.withUnsafeBytes { salt in
                tessera_scrypt(
                    password.baseAddress, password.count, salt.baseAddress, salt.count, UInt32(logN), UInt32(r), UInt32(p), &key, key.count,
                    nil, 0)
            }
        }
        guard status == 0 else { throw AccessPolicyError("scrypt failed (parameters out of range, or libcrypto missing)") }
        return key
    }

    /// Whether `a` and `b` are equal, in time that depends on their length only (a signature
    /// compared byte by byte with an early exit tells an attacker how much of it is right).
    static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }

    /// URL-safe base64 without padding (RFC 4648 §5).
    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacing("+", with: "-").replacing("/", with: "_").replacing("=", with: "")
    }

    /// The bytes of URL-safe base64 with or without padding; nil for anything else.
    static func bytes(base64URL text: some StringProtocol) -> [UInt8]? {
        guard text.utf8.allSatisfy({ isBase64URL($0) }) else { return nil }
        var standard = String(text).replacing("-", with: "+").replacing("_", with: "/")
        while standard.utf8.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard).map { Array($0) }
    }

    private static func isBase64URL(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "="):
            true
        default: false
        }
    }

    /// The file at `path`, whole: a policy, users or keys file, at most 4 MiB. The error names
    /// `what`, never the path (it may reach a log a client can read).
    static func readFile(_ path: String, what: String) throws -> [UInt8] {
        guard let data = try? Data(contentsOf: URL(filePath: path)) else { throw AccessPolicyError("cannot read \(what)") }
        guard data.count <= 4 << 20 else { throw AccessPolicyError("\(what) is over 4 MiB") }
        return Array(data)
    }

    private static func unavailable() -> AccessPolicyError {
        AccessPolicyError(SHA256Digest.unavailableReason ?? "libcrypto failed")
    }
}
