import TesseraCore

/// The parts of an EXIF block (a TIFF structure) that matter for display: orientation, and where
/// an embedded JPEG thumbnail sits.
struct EXIFMetadata: Sendable, Equatable {
    var orientation: Orientation = .up
    /// Byte range of the IFD1 JPEG thumbnail within the EXIF block, if present.
    var thumbnailRange: Range<Int>?

    /// Parses a TIFF-structured EXIF block, with or without the `Exif\0\0` prefix of JPEG APP1.
    /// Malformed blocks yield the defaults: metadata never makes an image undecodable.
    init(_ block: [UInt8]) {
        var bytes = block[...]
        if bytes.starts(with: Array("Exif\0\0".utf8)) { bytes = bytes.dropFirst(6) }
        let tiff = Array(bytes)
        guard tiff.count >= 8 else { return }
        let littleEndian: Bool
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: return
        }
        func unsigned(_ offset: Int, _ width: Int) -> Int? {
            guard offset >= 0, offset + width <= tiff.count else { return nil }
            var value = 0
            for index in 0..<width {
                let byte = Int(tiff[offset + (littleEndian ? width - 1 - index : index)])
                value = value << 8 | byte
            }
            return value
        }
        guard let ifd0 = unsigned(4, 4), let entryCount = unsigned(ifd0, 2) else { return }
        var thumbnailOffset: Int?
        var thumbnailLength: Int?
        func readEntries(at ifd: Int, count: Int, _ visit: (_ tag: Int, _ valueOffset: Int) -> Void) {
            for index in 0..<min(count, 1000) {
                let entry = ifd + 2 + index * 12
                guard let tag = unsigned(entry, 2) else { return }
                visit(tag, entry + 8)
            }
        }
        readEntries(at: ifd0, count: entryCount) { tag, valueOffset in
            if tag == 0x0112, let value = unsigned(valueOffset, 2), let orientation = Orientation(rawValue: value) {
                self.orientation = orientation
            }
        }
        guard let ifd1 = unsigned(ifd0 + 2 + entryCount * 12, 4), ifd1 > 0,
            let ifd1Count = unsigned(ifd1, 2)
        else { return }
        readEntries(at: ifd1, count: ifd1Count) { tag, valueOffset in
            if tag == 0x0201 { thumbnailOffset = unsigned(valueOffset, 4) }
            if tag == 0x0202 { thumbnailLength = unsigned(valueOffset, 4) }
        }
        if let start = thumbnailOffset, let length = thumbnailLength, length > 0, start + length <= tiff.count {
            let prefix = block.count - tiff.count
            thumbnailRange = (prefix + start)..<(prefix + start + length)
        }
    }
}
