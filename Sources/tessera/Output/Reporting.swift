import ArgumentParser
import FoundationEssentials
import Tessera
import TesseraCore

/// The exit status for each ``ErrorCategory``: the one table the CLI maps failures through (the
/// README lists it). 64 is a usage error (a bad option), as ArgumentParser and sysexits have it.
enum ExitStatus {
    static let usage: Int32 = 64
    /// A batch whose failures are of more than one category.
    static let mixed: Int32 = 1

    static func code(for category: ErrorCategory) -> Int32 {
        switch category {
        case .badInput: 65
        case .notFound: 66
        case .unsupported: 67
        case .tooLarge: 68
        case .truncated: 69
        case .corrupt: 70
        case .libraryUnavailable: 71
        case .io: 74
        case .network: 75
        case .busy: 76
        case .internal: 77
        case .cancelled: 130
        }
    }
}

/// Failures of one command run: each gets one line on stderr naming the file and why, the command
/// goes on with the rest, and ``exit()`` ends with the status of their category.
final class FailureLog: Sendable {
    private let categories = Locked<[ErrorCategory]>([])

    var count: Int { categories.withLock { $0.count } }

    /// Prints `tessera: SUBJECT: REASON` (control characters escaped) and records the category.
    func report(_ subject: String, _ error: any Error) {
        let reason = (error as? any TesseraError)?.description ?? Self.describe(error)
        categories.withLock { $0.append(ErrorCategory(of: error)) }
        writeToStandardError("tessera: \(oneLine(subject)): \(oneLine(reason))\n")
    }

    /// A warning that does not fail the command (a strip slot filled from its neighbour).
    func warn(_ subject: String, _ message: String) {
        writeToStandardError("tessera: \(oneLine(subject)): \(oneLine(message))\n")
    }

    /// Throws the exit status for what failed; returns when nothing did.
    func exit() throws {
        let categories = self.categories.withLock { $0 }
        guard let first = categories.first else { return }
        throw ExitCode(categories.allSatisfy { $0 == first } ? ExitStatus.code(for: first) : ExitStatus.mixed)
    }

    /// Errors from outside Tessera (file system, encoding JSON): the C library's words for
    /// file-system errors, which describe themselves badly, else their own description.
    private static func describe(_ error: any Error) -> String { fileSystemReason(error) }
}

/// Prints one JSON object on a line: `leading` keys, then `value`'s, then `trailing` (keys sorted,
/// so every line of a kind reads the same).
func printJSON(_ leading: [String: JSONScalar] = [:], _ value: (any Encodable)? = nil, _ trailing: [String: JSONScalar] = [:]) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let line = JSONLine(fields: leading.merging(trailing) { first, _ in first }, value: value)
    // Encoding plain numbers, strings and our own Codable results cannot fail.
    print(String(decoding: try! encoder.encode(line), as: UTF8.self))
}

/// A host-level JSON value beside a library result: a path, a time in milliseconds.
enum JSONScalar: Encodable {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case null

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try value.isFinite ? container.encode(value) : container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .null: try container.encodeNil()
        }
    }
}

/// The host's keys and a library result's, in one object.
private struct JSONLine: Encodable {
    let fields: [String: JSONScalar]
    let value: (any Encodable)?

    struct Key: CodingKey {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for (key, value) in fields { try container.encode(value, forKey: Key(stringValue: key)) }
        try value?.encode(to: encoder)
    }
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
        return unit == 0 ? "\(bytes) B" : String(cFormat: "%.1f ", value) + units[unit]
    }
}

extension Duration {
    /// The duration in milliseconds, rounded to a tenth.
    var milliseconds: Double {
        let (seconds, attoseconds) = components
        return ((Double(seconds) * 1000 + Double(attoseconds) / 1e15) * 10).rounded() / 10
    }
}
