import Foundation

/// A one-line progress bar on stderr, drawn only when stderr is a terminal.
final class ProgressBar: @unchecked Sendable {
    // @unchecked: `show(fraction:)` may be called from the decoding thread; state is under `lock`.
    private let total: Int
    private let enabled: Bool
    private var done = 0
    private let lock = NSLock()

    init(total: Int, enabled: Bool) {
        self.total = total
        self.enabled = enabled && total > 1
    }

    func advance() {
        lock.withLock {
            done += 1
            draw()
        }
    }

    /// Sets progress to `fraction` of the total (redrawn only when the bar changes).
    func show(fraction: Double) {
        lock.withLock {
            let value = Int(fraction * Double(total))
            guard value != done else { return }
            done = value
            draw()
        }
    }

    /// Erases the bar so a line of output can be printed cleanly.
    func clear() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }

    func finish() { clear() }

    private func draw() {
        guard enabled else { return }
        let width = 30
        let filled = total > 0 ? width * done / total : width
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let label = total == 1000 ? String(format: "%5.1f%%", Double(done) / 10) : "\(done)/\(total)"
        FileHandle.standardError.write(Data("\r\(bar) \(label)".utf8))
    }
}
