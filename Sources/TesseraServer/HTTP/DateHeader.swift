import TesseraCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The `Date` header's value for responses made outside Hummingbird's responder (which keeps its
/// own): the current second's, formatted once a second.
final class DateHeader: Sendable {
    private let last = Locked<(second: Int64, text: String)>((-1, ""))

    var now: String {
        let second = Int64(time(nil))
        return last.withLock { last in
            if last.second != second { last = (second, HTTPDate.string(fromSeconds: second)) }
            return last.text
        }
    }
}
