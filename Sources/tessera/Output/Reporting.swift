import Foundation

/// One line on stderr naming the file and why it failed; the command goes on with the others.
func reportFailure(_ path: String, _ error: any Error) {
    reportFailure(path, String(describing: error))
}

func reportFailure(_ path: String, _ reason: String) {
    FileHandle.standardError.write(Data("tessera: \(escapingControlCharacters(path)): \(escapingControlCharacters(reason))\n".utf8))
}

/// `text` with control characters written as escapes (`\n`, `\u{1B}`), so that a newline in a
/// hostile file name or in bytes a message quotes from a damaged file cannot split the one line.
func escapingControlCharacters(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return text }
    return text.unicodeScalars.map { scalar in
        guard scalar.properties.generalCategory == .control else { return String(scalar) }
        switch scalar {
        case "\n": return "\\n"
        case "\r": return "\\r"
        case "\t": return "\\t"
        default: return "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
        }
    }.joined()
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
