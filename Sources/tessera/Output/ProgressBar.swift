import TesseraCore

/// A one-line progress bar on stderr, drawn only when stderr is a terminal.
/// `show(fraction:)` may be called from the decoding thread; the count is under a lock.
final class ProgressBar: Sendable {
    private let total: Int
    private let enabled: Bool
    private let done = Locked(0)

    init(total: Int, enabled: Bool) {
        self.total = total
        self.enabled = enabled && total > 1
    }

    func advance() {
        done.withLock { done in
            done += 1
            draw(done)
        }
    }

    /// Sets progress to `fraction` of the total (redrawn only when the bar changes).
    func show(fraction: Double) {
        done.withLock { done in
            let value = Int(fraction * Double(total))
            guard value != done else { return }
            done = value
            draw(done)
        }
    }

    /// Erases the bar so a line of output can be printed cleanly.
    func clear() {
        guard enabled else { return }
        writeToStandardError("\r\u{1B}[K")
    }

    func finish() { clear() }

    private func draw(_ done: Int) {
        guard enabled else { return }
        let width = 30
        let filled = total > 0 ? width * done / total : width
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let label = total == 1000 ? String(cFormat: "%5.1f%%", Double(done) / 10) : "\(done)/\(total)"
        writeToStandardError("\r\(bar) \(label)")
    }
}
