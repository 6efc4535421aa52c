import FoundationEssentials
import TesseraCore

/// Turns a failed open into the error a user can act on: ffmpeg says only "invalid data" both for
/// a text file and for an MP4 whose index never got written, so the bytes are looked at here.
enum ContainerDiagnosis {
    static func failure(path: String, code: Int32) -> VideoError {
        // Mapped, not read: only the pages of the box headers visited below are ever loaded.
        guard let file = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) else {
            return .unreadable(reason: LibAV.message(code))
        }
        let head = file.prefix(64)
        if file.isEmpty { return .notAVideo }
        if isISOBaseMedia(head) {
            return isoBaseMediaTruncation(file).map { .truncated(reason: $0) } ?? .corrupt(reason: LibAV.message(code))
        }
        if hasKnownSignature(head) { return .corrupt(reason: LibAV.message(code)) }
        return .notAVideo
    }

    /// MP4, MOV, 3GP, M4V: a top-level box named `ftyp` right at the start.
    static func isISOBaseMedia(_ head: Data) -> Bool {
        head.count >= 8 && head[head.startIndex + 4..<head.startIndex + 8] == Data("ftyp".utf8)
    }

    /// Matroska/WebM, AVI, MPEG-TS, FLV, Ogg: containers whose failure means damage, not a stranger.
    private static func hasKnownSignature(_ head: Data) -> Bool {
        let bytes = [UInt8](head)
        if bytes.starts(with: [0x1A, 0x45, 0xDF, 0xA3]) { return true }
        if bytes.starts(with: Array("RIFF".utf8)) { return true }
        if bytes.starts(with: Array("FLV".utf8)) || bytes.starts(with: Array("OggS".utf8)) { return true }
        return bytes.first == 0x47 && bytes.count > 1 && bytes[1] & 0x80 == 0
    }

    /// Walks the top-level boxes: one that runs past the end of the file, or a file with no `moov`
    /// box (the index an interrupted recorder never wrote), means the file was cut short.
    static func isoBaseMediaTruncation(_ file: Data) -> String? {
        let size = UInt64(file.count)
        var offset: UInt64 = 0
        var sawMovie = false
        while offset + 8 <= size {
            let start = file.startIndex + Int(offset)
            let bytes = [UInt8](file[start..<min(start + 16, file.endIndex)])
            var boxSize = UInt64(bytes[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
            if boxSize == 1, bytes.count >= 16 {
                boxSize = bytes[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            } else if boxSize == 0 {
                boxSize = size - offset
            }
            let type = bytes[4..<8]
            if type.elementsEqual("moov".utf8) { sawMovie = true }
            guard boxSize >= 8 else { return nil }
            if offset + boxSize > size {
                return "the \(boxName(type)) box needs \(offset + boxSize) bytes, the file has \(size)"
            }
            offset += boxSize
        }
        return sawMovie ? nil : "no 'moov' box (the file's index was never written)"
    }

    /// A sample table that claims more entries than its box can list: a fragment's track run
    /// (`trun`), or one of the movie's tables (`stsz`, `stz2`, `stsc`, `stco`, `co64`, `stss`,
    /// `stps`, `stts`, `ctts`, `elst`, `sbgp`). Checked before ffmpeg opens the file: libavformat 59
    /// sizes its arrays from the claim before it reads the entries, so 504 bytes claiming 14.7
    /// million samples made it allocate 374 MB (a fuzzer's find).
    ///
    /// Boxes are walked as libavformat walks them: a child that runs past its parent is cut at the
    /// parent's end rather than skipped, so a box one byte too long cannot hide what it holds.
    static func implausibleSampleTable(_ file: Data) -> String? {
        var found: String?
        func visit(from start: UInt64, to end: UInt64) {
            forEachBox(in: file, from: start, to: end) { type, start, payload, end in
                guard found == nil else { return }
                let name = String(decoding: type, as: UTF8.self)
                if containers.contains(name) {
                    visit(from: payload, to: end)
                } else if let claim = tableClaim(name, in: file, from: payload, to: end), claim.count > claim.capacity {
                    found = "a '\(name)' box of \(end - start) bytes claims \(claim.count) entries (it can hold \(claim.capacity))"
                }
            }
        }
        visit(from: 0, to: UInt64(file.count))
        return found
    }

    /// The boxes on the way from the top level to a sample table.
    private static let containers: Set<String> = ["moov", "trak", "edts", "mdia", "minf", "stbl", "moof", "traf"]

    /// The entry count a table box's payload (`start..<end`, after the box header) claims, and how
    /// many entries the payload has room for; nil for a box that is not a table or has no count.
    private static func tableClaim(_ type: String, in file: Data, from start: UInt64, to end: UInt64)
        -> (count: UInt64, capacity: UInt64)?
    {
        func word(_ at: UInt64) -> UInt64? {
            guard at + 4 <= end else { return nil }
            let first = file.startIndex + Int(at)
            return UInt64(file[first..<first + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        }
        // Bytes before the count (after version and flags), and bytes per entry; 0 per entry means
        // the entries carry nothing, so any count fits.
        guard let versionAndFlags = word(start) else { return nil }
        let version = versionAndFlags >> 24, flags = versionAndFlags & 0xFF_FFFF
        let fields: (before: UInt64, bitsPerEntry: UInt64)
        switch type {
        case "trun":
            // The count comes first; data-offset and first-sample-flags follow it, then per sample
            // duration, size, flags and time offset, each when its flag is set.
            let optional = UInt64((flags & 0x001 != 0 ? 4 : 0) + (flags & 0x004 != 0 ? 4 : 0))
            let perSample = UInt64([0x100, 0x200, 0x400, 0x800].filter { flags & $0 != 0 }.count * 32)
            guard let count = word(start + 4) else { return nil }
            let payload = start + 8 + optional <= end ? end - start - 8 - optional : 0
            return (count, perSample > 0 ? payload * 8 / perSample : UInt64(file.count))
        case "stsz":
            guard let sampleSize = word(start + 4) else { return nil }
            fields = (4, sampleSize == 0 ? 32 : 0)
        case "stz2":
            guard let sizeField = word(start + 4) else { return nil }
            fields = (4, sizeField & 0xFF)
        case "stsc": fields = (0, 96)
        case "stco", "stss", "stps": fields = (0, 32)
        case "co64", "stts", "ctts": fields = (0, 64)
        case "elst": fields = (0, version == 1 ? 160 : 96)
        case "sbgp": fields = (version == 1 ? 8 : 4, 64)
        default: return nil
        }
        guard let count = word(start + 4 + fields.before) else { return nil }
        let payload = end - (start + 8 + fields.before)
        return (count, fields.bitsPerEntry > 0 ? payload * 8 / fields.bitsPerEntry : UInt64(file.count))
    }

    /// Calls `body` with the type, start, payload start (after the 8- or 16-byte header) and end of
    /// each box from `start` up to `end`. A box that claims more than is left is cut at `end`, as
    /// libavformat reads it.
    private static func forEachBox(
        in file: Data, from start: UInt64, to end: UInt64, _ body: (ArraySlice<UInt8>, UInt64, UInt64, UInt64) -> Void
    ) {
        var offset = start
        while offset + 8 <= end {
            let first = file.startIndex + Int(offset)
            let bytes = [UInt8](file[first..<min(first + 16, file.startIndex + Int(end))])
            var size = UInt64(bytes[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
            var header: UInt64 = 8
            if size == 1 {
                guard bytes.count >= 16 else { return }
                size = bytes[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                header = 16
            } else if size == 0 {
                size = end - offset
            }
            guard size >= header else { return }
            let boxEnd = size <= end - offset ? offset + size : end
            body(bytes[4..<8], offset, offset + header, boxEnd)
            offset = boxEnd
        }
    }

    /// A box type as a message can quote it: 'mdat' when it is printable, else its hex bytes, as a
    /// damaged file's type can hold any byte, a newline included.
    private static func boxName(_ type: ArraySlice<UInt8>) -> String {
        if type.allSatisfy({ (0x20...0x7E).contains($0) }) { return "'" + String(decoding: type, as: UTF8.self) + "'" }
        return "0x" + type.map { String(cFormat: "%02X", $0) }.joined()
    }
}
