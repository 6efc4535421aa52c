import CTesseraCrypto

/// SHA-256 and HMAC-SHA256 through the system's libcrypto, loaded on first use (see
/// CTesseraCrypto.h for why not swift-crypto). Used by the disk cache (file names) and the S3
/// client (Signature Version 4).
package enum SHA256Digest {
    /// The lowercase hex SHA-256 of the UTF-8 of `text`; nil when libcrypto cannot be loaded.
    package static func hex(_ text: String) -> String? {
        digest(Array(text.utf8)).map(hex(_:))
    }

    /// The SHA-256 of `bytes`; nil when libcrypto cannot be loaded.
    package static func digest(_ bytes: some Collection<UInt8>) -> [UInt8]? {
        var digest = [UInt8](repeating: 0, count: 32)
        let status = Array(bytes).withUnsafeBytes { tessera_sha256($0.baseAddress, $0.count, &digest, nil, 0) }
        return status == 0 ? digest : nil
    }

    /// The HMAC-SHA256 of `message` under `key`; nil when libcrypto cannot be loaded.
    package static func hmac(key: [UInt8], _ message: some Collection<UInt8>) -> [UInt8]? {
        guard !key.isEmpty else { return nil }  // never needed: Signature Version 4's keys are never empty
        var digest = [UInt8](repeating: 0, count: 32)
        let status = key.withUnsafeBytes { key in
            Array(message).withUnsafeBytes { tessera_hmac_sha256(key.baseAddress!, key.count, $0.baseAddress, $0.count, &digest, nil, 0) }
        }
        return status == 0 ? digest : nil
    }

    /// Lowercase hex digits of `bytes`.
    package static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
    }

    /// Why hashing is unavailable (libcrypto missing), or nil when it works.
    package static var unavailableReason: String? {
        var message = [CChar](repeating: 0, count: 256)
        var digest = [UInt8](repeating: 0, count: 32)
        guard tessera_sha256(nil, 0, &digest, &message, message.count) != 0 else { return nil }
        return String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
