import FoundationEssentials
import NIOCore

/// The JSON bodies of the API routes: keys sorted (stable bodies, stable ETags), slashes unescaped.
enum JSONBody {
    static func encode(_ value: some Encodable) throws -> ByteBuffer {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return ByteBuffer(bytes: try encoder.encode(value))
    }
}
