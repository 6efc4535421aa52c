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

    /// A movie fragment's track run (`moof`/`traf`/`trun`) that claims more samples than its box
    /// can list, or, when its samples carry no fields of their own, than the file has bytes. Checked
    /// before ffmpeg opens the file: libavformat 59 sizes its index from the claim before checking
    /// it, so 504 bytes claiming 14.7 million samples made it allocate 374 MB (a fuzzer's find).
    static func implausibleTrackRun(_ file: Data) -> String? {
        let fileSize = UInt64(file.count)
        var found: String?
        forEachBox(in: file, from: 0, to: fileSize) { type, start, end in
            guard type.elementsEqual("moof".utf8) else { return }
            forEachBox(in: file, from: start + 8, to: end) { type, start, end in
                guard type.elementsEqual("traf".utf8) else { return }
                forEachBox(in: file, from: start + 8, to: end) { type, start, end in
                    guard found == nil, type.elementsEqual("trun".utf8), end - start >= 16 else { return }
                    let header = [UInt8](file[file.startIndex + Int(start) + 8..<file.startIndex + Int(start) + 16])
                    let flags = header[1..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                    let count = UInt64(header[4..<8].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
                    // data-offset and first-sample-flags, then per sample: duration, size, flags, time offset.
                    let optional = UInt64((flags & 0x001 != 0 ? 4 : 0) + (flags & 0x004 != 0 ? 4 : 0))
                    let perSample = UInt64([0x100, 0x200, 0x400, 0x800].filter { flags & $0 != 0 }.count * 4)
                    let room = end - start >= 16 + optional ? end - start - 16 - optional : 0
                    let limit = perSample > 0 ? room / perSample : fileSize
                    if count > limit {
                        found = "a 'trun' box of \(end - start) bytes claims \(count) samples (it can hold \(limit))"
                    }
                }
            }
        }
        return found
    }

    /// Calls `body` with the type and byte range of each box from `start` up to `end`, stopping at
    /// one that does not fit.
    private static func forEachBox(
        in file: Data, from start: UInt64, to end: UInt64, _ body: (ArraySlice<UInt8>, UInt64, UInt64) -> Void
    ) {
        var offset = start
        while offset + 8 <= end {
            let first = file.startIndex + Int(offset)
            let bytes = [UInt8](file[first..<min(first + 16, file.startIndex + Int(end))])
            var size = UInt64(bytes[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
            if size == 1 {
                guard bytes.count >= 16 else { return }
                size = bytes[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            } else if size == 0 {
                size = end - offset
            }
            guard size >= 8, size <= end - offset else { return }
            body(bytes[4..<8], offset, offset + size)
            offset += size
        }
    }

    /// A box type as a message can quote it: 'mdat' when it is printable, else its hex bytes, as a
    /// damaged file's type can hold any byte, a newline included.
    private static func boxName(_ type: ArraySlice<UInt8>) -> String {
        if type.allSatisfy({ (0x20...0x7E).contains($0) }) { return "'" + String(decoding: type, as: UTF8.self) + "'" }
        return "0x" + type.map { String(cFormat: "%02X", $0) }.joined()
    }
}
