/// How far a long operation (a thumbnail batch, a pyramid build, a strip, a trim) has come: the one
/// progress both the CLI's bars and the server's job status read.
///
/// The operation sets ``totalUnitCount`` (rows, tiles, frames) and advances ``completedUnitCount``;
/// readers poll ``fraction`` or pass `onChange`, which is called on the working thread each time
/// the fraction moves by at least `granularity` (and at completion), so a fast loop costs no
/// redrawing.
public final class WorkProgress: Sendable {
    private let lock = ConditionLock()
    private nonisolated(unsafe) var total: Int
    private nonisolated(unsafe) var completed = 0
    private nonisolated(unsafe) var reported = -1.0
    // nonisolated(unsafe): the three are read and written only under `lock`.
    private let granularity: Double
    private let onChange: (@Sendable (Double) -> Void)?

    /// - Parameters:
    ///   - totalUnitCount: units of work in all, if known; the operation may set it later.
    ///   - granularity: the smallest change of ``fraction`` (0…1) that calls `onChange`; 0.001 is every
    ///     tenth of a percent.
    ///   - onChange: called with the new fraction on the thread doing the work, never under a lock;
    ///     keep it short (update a bar, store the value).
    public init(totalUnitCount: Int = 0, granularity: Double = 0.001, onChange: (@Sendable (Double) -> Void)? = nil) {
        total = max(0, totalUnitCount)
        self.granularity = granularity
        self.onChange = onChange
    }

    /// Units of work in all; 0 until the operation knows.
    public var totalUnitCount: Int {
        get { lock.withLock { total } }
        set { update { total = max(0, newValue) } }
    }

    /// Units done, at most ``totalUnitCount``.
    public var completedUnitCount: Int {
        get { lock.withLock { completed } }
        set { update { completed = max(0, newValue) } }
    }

    /// Done ÷ total, 0…1 (0 while the total is unknown).
    public var fraction: Double { lock.withLock { Self.fraction(completed, of: total) } }

    /// Whether the total is known and every unit is done.
    public var isFinished: Bool { lock.withLock { total > 0 && completed >= total } }

    /// Adds `units` to the completed count.
    public func advance(by units: Int = 1) { update { completed += units } }

    /// Marks the operation complete.
    public func finish() {
        update {
            total = max(total, 1)
            completed = total
        }
    }

    private func update(_ change: () -> Void) {
        lock.lock()
        change()
        let now = Self.fraction(completed, of: total)
        let due = onChange != nil && (now - reported >= granularity || (now >= 1 && reported < 1))
        if due { reported = now }
        lock.unlock()
        if due { onChange?(now) }
    }

    private static func fraction(_ completed: Int, of total: Int) -> Double {
        total > 0 ? min(1, Double(completed) / Double(total)) : 0
    }
}
