/// Strong HTTP validators: FNV-1a (64 bits) of whatever identifies a representation, quoted. Not a
/// security hash; a change of the input changes the tag.
package enum EntityTag {
    package static func make<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        let hex = String(hash(bytes), radix: 16)
        return "\"" + String(repeating: "0", count: 16 - hex.count) + hex + "\""
    }

    /// FNV-1a, 64 bits: the same in every process (unlike `Hasher`, which is seeded per process).
    package static func hash<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return hash
    }
}
