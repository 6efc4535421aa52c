/// Owns one C object and releases it exactly once, when the last Swift reference goes away.
///
/// Codec wrappers hold their library state through these, so that an initializer that throws
/// halfway, or a reader dropped mid-decode, can never leak or double-free the C side.
final class CHandle<Pointer> {
    let pointer: Pointer
    private let release: (Pointer) -> Void

    init(_ pointer: Pointer, release: @escaping (Pointer) -> Void) {
        self.pointer = pointer
        self.release = release
    }

    deinit { release(pointer) }
}

extension CHandle {
    /// A zero-initialised C struct allocated by Swift; `destroy` runs before the memory is freed.
    static func allocate<Value>(
        _ initial: Value, destroy: @escaping (UnsafeMutablePointer<Value>) -> Void
    ) -> CHandle<UnsafeMutablePointer<Value>> where Pointer == UnsafeMutablePointer<Value> {
        let pointer = UnsafeMutablePointer<Value>.allocate(capacity: 1)
        pointer.initialize(to: initial)
        return CHandle(pointer) { pointer in
            destroy(pointer)
            pointer.deinitialize(count: 1)
            pointer.deallocate()
        }
    }
}

/// Reads a NUL-terminated message out of a fixed-size C character array (imported as a tuple).
func cMessage<Tuple>(_ characters: Tuple) -> String {
    withUnsafeBytes(of: characters) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
}
