#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension String {
    /// `printf`-style formatting (`%d`, `%.1f`, `%02x`, `%-12s`…) through the C library, without
    /// Foundation: `String(cFormat:)` lives in full Foundation, whose start-up alone costs a command
    /// several megabytes of resident memory. Objective-C's `%@` is not supported; pass strings
    /// through interpolation instead.
    public init(cFormat format: String, _ arguments: any CVarArg...) {
        self = withVaList(arguments) { list in
            var buffer = [CChar](repeating: 0, count: 128)
            // vsnprintf consumes the list, so a longer result is formatted again into a fitting buffer.
            let needed = withVaList(arguments) { vsnprintf(&buffer, buffer.count, format, $0) }
            guard needed >= buffer.count else { return Self.decode(buffer) }
            buffer = [CChar](repeating: 0, count: Int(needed) + 1)
            _ = vsnprintf(&buffer, buffer.count, format, list)
            return Self.decode(buffer)
        }
    }

    private static func decode(_ buffer: [CChar]) -> String {
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
