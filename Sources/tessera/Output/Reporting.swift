import Foundation

/// One line on stderr naming the file and why it failed; the command goes on with the others.
func reportFailure(_ path: String, _ error: any Error) {
    reportFailure(path, String(describing: error))
}

func reportFailure(_ path: String, _ reason: String) {
    FileHandle.standardError.write(Data("tessera: \(path): \(reason)\n".utf8))
}

/// Human-readable byte counts (1 KB = 1000 bytes, as file managers show them).
enum ByteCount {
    static func formatted(_ bytes: Int) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1000 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(bytes) B" : String(format: "%.1f %@", value, units[unit])
    }
}

extension Duration {
    /// The duration in milliseconds, rounded to a tenth.
    var milliseconds: Double {
        let (seconds, attoseconds) = components
        return ((Double(seconds) * 1000 + Double(attoseconds) / 1e15) * 10).rounded() / 10
    }
}
