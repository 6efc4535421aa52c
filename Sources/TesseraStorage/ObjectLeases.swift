import FoundationEssentials
public import TesseraCore

/// Leases on names in a shared ``ObjectStoring``: at most one holder of a name at a time (the one
/// server building a given pyramid), and a crashed holder's lease lapses so another can take over.
///
/// Built from conditional creates alone, which every store here has (S3's `If-None-Match: *`):
/// a lease is a numbered generation object, `NAME.lease/GENERATION` (zero-padded, so the last in a
/// listing is the newest). To acquire, create the generation after the newest; to renew, the
/// holder creates the next generation itself; to take over a lapsed lease, create the one after
/// it; to release, create the next generation marked released. Whoever's create succeeds holds
/// the lease; every other create of that number fails, so two servers never both hold it. The
/// newest generation is never deleted (only older ones are), so numbers are never reused and a
/// holder that stalled past its lease cannot renew into someone else's.
///
/// When a lease has lapsed is judged without comparing clocks between machines (as Amazon's
/// DynamoDB lock client does): an observer notes when it first saw a generation, by its own
/// monotonic clock, and takes over only if that generation is still the newest ``duration``
/// later. A holder renews every third of ``duration``, so a live holder never looks lapsed.
public final class ObjectLeases: Sendable {
    /// The store the lease objects are kept in, shared by every process that competes for a name.
    public let store: any ObjectStoring
    /// How long a generation may stand unrenewed before others may take the lease over.
    public let duration: Duration
    /// Who this process is, written into every generation it creates (host, pid, a random part).
    public let owner: String
    private let firstSeen = Locked<[String: (generation: Int, at: ContinuousClock.Instant)]>([:])

    /// A lease held: its name and generation.
    public struct Lease: Sendable, Equatable {
        /// The name leased (a pyramid's name, say); its generations are kept under `NAME.lease/`.
        public let name: String
        /// The generation this holder created; ``ObjectLeases/renew(_:)`` returns the next.
        public let generation: Int
    }

    /// What ``acquire(_:)`` found.
    public enum Outcome: Sendable, Equatable {
        /// This process holds the lease now.
        case acquired(Lease)
        /// Another holds it: `owner`, as it wrote itself.
        case held(owner: String)
    }

    /// - Parameters:
    ///   - store: where the lease objects are kept; every competing process must use the same one.
    ///   - duration: how long a generation may stand unrenewed before another process may take over.
    ///   - owner: how this process names itself in the generations it creates; nil is host name,
    ///     process id and a random part.
    public init(store: any ObjectStoring, duration: Duration = .seconds(30), owner: String? = nil) {
        self.store = store
        self.duration = duration
        self.owner = owner ?? "\(ProcessInfo.processInfo.hostName)/\(ProcessInfo.processInfo.processIdentifier)/\(UUID().uuidString.prefix(8))"
    }

    /// Takes the lease on `name` if no one holds it or its holder has stopped renewing it.
    public func acquire(_ name: String) async throws -> Outcome {
        let (newest, holder) = try await newestGeneration(name)
        guard let newest else { return try await create(name, generation: 1, observed: nil) }
        if holder == nil { return try await create(name, generation: newest + 1, observed: nil) }  // released
        let now = ContinuousClock.now
        let seen = firstSeen.withLock { seen -> ContinuousClock.Instant in
            if let entry = seen[name], entry.generation == newest { return entry.at }
            seen[name] = (newest, now)
            return now
        }
        guard now - seen >= duration else { return .held(owner: holder ?? "unknown") }
        return try await create(name, generation: newest + 1, observed: holder)
    }

    /// Extends `lease` by creating its next generation; throws ``ObjectLeaseError/lost(name:)``
    /// when another took it over meanwhile.
    public func renew(_ lease: Lease) async throws -> Lease {
        let next = Lease(name: lease.name, generation: lease.generation + 1)
        guard try await store.create(key(next), Data(owner.utf8), contentType: "text/plain") else {
            throw ObjectLeaseError.lost(name: lease.name)
        }
        try? await store.delete(key(lease))
        return next
    }

    /// Gives the lease up; the name is free at once. Releasing a lease already lost does nothing.
    public func release(_ lease: Lease) async throws {
        let marker = Lease(name: lease.name, generation: lease.generation + 1)
        if try await store.create(key(marker), Data(Self.releasedMarker.utf8), contentType: "text/plain") {
            try? await store.delete(key(lease))
        }
    }

    /// The body of a generation that marks the lease released (an owner never contains a NUL).
    private static let releasedMarker = "\u{0}released"

    /// Runs `body` while holding `lease`, renewing it every third of ``duration``, and releases it
    /// after. If a renewal finds the lease lost, `body` is cancelled and this throws
    /// ``ObjectLeaseError/lost(name:)``.
    public func holding<T: Sendable>(_ lease: Lease, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let current = CurrentLease(lease)
        let result: Result<T, any Error>
        do {
            result = .success(
                try await withThrowingTaskGroup(of: T?.self) { group in
                    group.addTask { try await body() }
                    group.addTask {
                        while true {
                            try await Task.sleep(for: self.duration / 3)
                            current.set(try await self.renew(current.get()))
                        }
                    }
                    defer { group.cancelAll() }
                    while let outcome = try await group.next() {
                        if let outcome { return outcome }
                    }
                    throw CancellationError()
                })
        } catch {
            result = .failure(error)
        }
        try? await release(current.get())
        return try result.get()
    }

    // MARK: - Generations

    private func create(_ name: String, generation: Int, observed holder: String?) async throws -> Outcome {
        let lease = Lease(name: name, generation: generation)
        if try await store.create(key(lease), Data(owner.utf8), contentType: "text/plain") {
            // Generations before it are dead; clearing them keeps listings short.
            for old in try await store.listAll(prefix: name + ".lease/") where old.key < key(lease) {
                try? await store.delete(old.key)
            }
            return .acquired(lease)
        }
        let (_, winner) = try await newestGeneration(name)
        return .held(owner: winner ?? holder ?? "unknown")
    }

    /// The newest generation of `name`'s lease and the owner it names (nil when it marks the lease
    /// released); (nil, nil) when there is none.
    private func newestGeneration(_ name: String) async throws -> (Int?, String?) {
        let generations = try await store.listAll(prefix: name + ".lease/")
        guard let newest = generations.compactMap({ Int($0.key.split(separator: "/").last ?? "") }).max() else { return (nil, nil) }
        // Deleted since it was listed means a newer generation exists: it is held, by whom is unknown.
        guard let body = try? await store.get(key(Lease(name: name, generation: newest))) else { return (newest, "unknown") }
        let holder = String(decoding: body, as: UTF8.self)
        return (newest, holder == Self.releasedMarker ? nil : holder)
    }

    private func key(_ lease: Lease) -> String {
        let digits = String(lease.generation)
        return lease.name + ".lease/" + String(repeating: "0", count: max(0, 12 - digits.count)) + digits
    }
}

/// The lease a holder renews, shared between its renewing task and the end of ``ObjectLeases/holding(_:_:)``.
private final class CurrentLease: Sendable {
    private let lease: Locked<ObjectLeases.Lease>
    init(_ lease: ObjectLeases.Lease) { self.lease = Locked(lease) }
    func get() -> ObjectLeases.Lease { lease.withLock { $0 } }
    func set(_ value: ObjectLeases.Lease) { lease.withLock { $0 = value } }
}

/// Why a lease operation failed.
public enum ObjectLeaseError: TesseraError, Equatable {
    /// Another process took the lease over (this one stopped renewing in time).
    case lost(name: String)

    /// Always `ErrorCategory.busy`: the work may be retried once the new holder is done.
    public var category: ErrorCategory { .busy }

    public var description: String {
        switch self {
        case .lost(let name): "the lease on \(name) was taken over"
        }
    }
}
