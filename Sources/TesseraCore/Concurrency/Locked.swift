#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value reached only under a pthread mutex: every lock in Tessera.
///
/// Why not the standard library's `Synchronization.Mutex`: on Linux its waiters park on a
/// priority-inheritance futex inside `libswiftSynchronization`, which is not built with
/// ThreadSanitizer, so when two threads contend, the hand-off from one holder to the next is
/// invisible to TSan and every access the lock protects is reported as a race (seen in
/// `MemoryImageCache`). TSan intercepts `pthread_mutex_lock`, so this lock keeps the sanitizer run
/// meaningful, and the build that is tested is the build that ships. Uncontended it costs what
/// `Mutex` does (one atomic compare-and-swap each way); the mutex and the value are allocated once,
/// at `init`, where a pthread mutex needs a stable address.
package final class Locked<Value: ~Copyable>: @unchecked Sendable {
    // @unchecked: `value` is only reached inside `withLock`, under `mutex`; `init` takes the value
    // as `sending` and `withLock` gives it out as `inout sending`, as `Mutex` does, so no reference
    // to a non-Sendable value escapes the lock.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let value: UnsafeMutablePointer<Value>

    package init(_ initialValue: consuming sending Value) {
        pthread_mutex_init(mutex, nil)
        value = .allocate(capacity: 1)
        value.initialize(to: initialValue)
    }

    deinit {
        value.deinitialize(count: 1)
        value.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the lock; `body` must not call `withLock` on the same
    /// lock again (the mutex is not recursive).
    package func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
    }
}
