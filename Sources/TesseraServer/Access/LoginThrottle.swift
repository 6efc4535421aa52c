import Synchronization
import TesseraCore

/// Failed logins counted per user name and per client address over a window: beyond
/// ``perUser`` for a name or ``perAddress`` for an address, logins are refused (429) until the
/// window passes, whatever the password, so passwords cannot be guessed at the rate scrypt allows.
final class LoginThrottle: Sendable {
    let perUser: Int
    let perAddress: Int
    let window: Duration
    /// Failures per key (`user:NAME`, `address:ADDRESS`) since the window began; the least recently
    /// failed keys are forgotten first beyond 100,000.
    private let failures = Mutex(LRUCache<String, (count: Int, since: ContinuousClock.Instant)>(costLimit: 100_000))

    init(perUser: Int = 5, perAddress: Int = 20, window: Duration = .seconds(900)) {
        self.perUser = perUser
        self.perAddress = perAddress
        self.window = window
    }

    /// Whether a login for `user` from `address` may be tried now.
    func allows(user: String, address: String) -> Bool {
        failures.withLock { counts in
            count(&counts, "user:" + user) < perUser && count(&counts, "address:" + address) < perAddress
        }
    }

    /// Counts a failed login for `user` from `address`.
    func fail(user: String, address: String) {
        let now = ContinuousClock.now
        failures.withLock { counts in
            for key in ["user:" + user, "address:" + address] {
                let known = counts.value(for: key).flatMap { now - $0.since < window ? $0 : nil }
                _ = counts.insert(((known?.count ?? 0) + 1, known?.since ?? now), for: key, cost: 1)
            }
        }
    }

    private func count(_ counts: inout LRUCache<String, (count: Int, since: ContinuousClock.Instant)>, _ key: String) -> Int {
        guard let known = counts.value(for: key), ContinuousClock.now - known.since < window else { return 0 }
        return known.count
    }
}
