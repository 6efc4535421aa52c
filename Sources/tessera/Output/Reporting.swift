import Foundation

/// One line on stderr naming the file and why it failed; the command goes on with the others.
func reportFailure(_ path: String, _ error: any Error) {
    let reason = String(describing: error)
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
