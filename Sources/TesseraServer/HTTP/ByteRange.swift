/// The `Range` header of a GET for a file (RFC 9110 §14): one byte range, what `<video>` sends to
/// seek. A header with several ranges, or one that is not a byte range, is ignored and the whole
/// file sent, which the RFC allows.
enum ByteRange: Equatable {
    /// Send the whole file (no Range header, or one that is ignored).
    case whole
    /// Send these bytes, with 206 and Content-Range.
    case part(ClosedRange<Int>)
    /// 416: the range starts past the end.
    case unsatisfiable

    init(header: String?, fileSize: Int) {
        guard let header, header.hasPrefix("bytes="), !header.contains(",") else {
            self = .whole
            return
        }
        let spec = header.dropFirst(6).trimmingSpaces
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else {
            self = .whole
            return
        }
        let first = parts[0].isEmpty ? nil : Int(parts[0])
        let last = parts[1].isEmpty ? nil : Int(parts[1])
        // A part that is present but not a number makes the header invalid: ignored.
        guard parts[0].isEmpty || first != nil, parts[1].isEmpty || last != nil else {
            self = .whole
            return
        }
        switch (first, last) {
        case (let first?, let last):
            guard first >= 0, last.map({ $0 >= first }) ?? true else {
                self = .whole
                return
            }
            guard first < fileSize else {
                self = .unsatisfiable
                return
            }
            self = .part(first...min(last ?? fileSize - 1, fileSize - 1))
        case (nil, let suffix?):
            // The last `suffix` bytes.
            guard suffix > 0, fileSize > 0 else {
                self = suffix > 0 ? .unsatisfiable : .whole
                return
            }
            self = .part(max(0, fileSize - suffix)...(fileSize - 1))
        case (nil, nil):
            self = .whole
        }
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs (HTTP's optional white space).
    var trimmingSpaces: Substring {
        var text = self
        while text.first == " " || text.first == "\t" { text = text.dropFirst() }
        while text.last == " " || text.last == "\t" { text = text.dropLast() }
        return text
    }
}
