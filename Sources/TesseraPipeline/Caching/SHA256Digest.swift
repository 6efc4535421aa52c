import CTesseraCrypto

/// SHA-256 through the system's libcrypto, loaded on first use (see CTesseraCrypto.h for why not
/// swift-crypto).
enum SHA256Digest {
    /// The lowercase hex SHA-256 of the UTF-8 of `text`; nil when libcrypto cannot be loaded.
    static func hex(_ text: String) -> String? {
        var digest = [UInt8](repeating: 0, count: 32)
        let status = Array(text.utf8).withUnsafeBytes { tessera_sha256($0.baseAddress, $0.count, &digest, nil, 0) }
        guard status == 0 else { return nil }
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: digest.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
    }

    /// Why hashing is unavailable (libcrypto missing), or nil when it works.
    static var unavailableReason: String? {
        var message = [CChar](repeating: 0, count: 256)
        var digest = [UInt8](repeating: 0, count: 32)
        guard tessera_sha256(nil, 0, &digest, &message, message.count) != 0 else { return nil }
        return String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
