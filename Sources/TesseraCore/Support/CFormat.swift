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
        // vsnprintf consumes its list and reports the length it needed, so a result longer than
        // the first buffer is formatted again, with a fresh list, into one that fits.
        func formatted(capacity: Int) -> (text: String, needed: Int) {
            var buffer = [CChar](repeating: 0, count: capacity)
            let needed = withVaList(arguments) { vsnprintf(&buffer, capacity, format, $0) }
            let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
            return (String(decoding: bytes, as: UTF8.self), Int(needed))
        }
        let first = formatted(capacity: 128)
        self = first.needed < 128 ? first.text : formatted(capacity: first.needed + 1).text
    }
}
