#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A mutex with one condition variable, over pthreads: what the executor's workers and the
/// scanline pipeline's producer and consumer wait on. Foundation's `NSCondition` would do the same
/// but costs every process that links it the whole of Foundation.
package final class ConditionLock: @unchecked Sendable {
    // @unchecked: the pthread objects are only touched through pthread calls, which synchronise.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    package init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    package func lock() { pthread_mutex_lock(mutex) }
    package func unlock() { pthread_mutex_unlock(mutex) }

    /// Releases the lock, waits for a signal, and takes the lock again. Callers loop on their
    /// predicate: wake-ups may be spurious.
    package func wait() { pthread_cond_wait(condition, mutex) }
    /// ``wait()``, giving up after `seconds`; false when the time ran out.
    package func wait(seconds: Double) -> Bool {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let nanoseconds = Int(now.tv_nsec) + Int((seconds - seconds.rounded(.down)) * 1e9)
        var deadline = timespec()
        deadline.tv_sec = now.tv_sec + Int(seconds.rounded(.down)) + nanoseconds / 1_000_000_000
        deadline.tv_nsec = nanoseconds % 1_000_000_000
        return pthread_cond_timedwait(condition, mutex, &deadline) == 0
    }

    package func signal() { pthread_cond_signal(condition) }
    package func broadcast() { pthread_cond_broadcast(condition) }

    package func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }

    /// Tells a producer thread to stop (`request`, under the lock, then a broadcast) and waits
    /// until it says it has (`finished`): after this returns it touches nothing the caller owns.
    package func stopProducer(_ request: () -> Void, until finished: () -> Bool) {
        lock()
        request()
        broadcast()
        while !finished() { wait() }
        unlock()
    }
}

/// Starts a detached thread running `body`: what the executor needs, without Foundation's `Thread`.
package func startDetachedThread(_ body: @escaping @Sendable () -> Void) {
    final class Box: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    var thread = pthread_t()
    let status = pthread_create(
        &thread, &attributes,
        { argument in
            let box = Unmanaged<Box>.fromOpaque(argument!).takeRetainedValue()
            box.body()
            return nil
        }, box)
    pthread_attr_destroy(&attributes)
    precondition(status == 0, "pthread_create failed: \(status)")
}
