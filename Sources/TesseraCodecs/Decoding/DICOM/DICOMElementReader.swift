/// Reads a DICOM Part 10 file's data elements one header at a time (PS3.5 §7), little endian,
/// with explicit or implicit value representations, through a ``ByteStream``: a value is read only
/// when its reader asks for it, every other is stepped over, so a header is read in a few windows
/// of the file whatever its frames weigh. Every length is checked against the file's end before
/// it is used; the walk's callers bound nesting and counts.
struct DICOMElementReader {
    /// One element's header; its value follows at ``valueOffset``.
    struct Element {
        /// Group in the high 16 bits, element in the low 16: (0028,0010) is `0x0028_0010`.
        let tag: UInt32
        /// The value representation as two ASCII letters (`SQ`, `OB`); `UN` when the syntax is
        /// implicit and the tag is not one of the sequences this reader knows.
        let vr: UInt16
        /// The value's length in bytes; nil when undefined (a sequence, an item, encapsulated pixels).
        let length: Int?
        let valueOffset: Int

        var isSequence: Bool { vr == DICOMElementReader.sq || (length == nil && tag != DICOMTag.pixelData) }
    }

    let stream: ByteStream
    /// Whether headers carry their VR (every transfer syntax but Implicit VR Little Endian).
    var explicitVR: Bool

    static let sq = vr("SQ")
    static let un = vr("UN")
    /// VRs whose explicit header has two reserved bytes and a 32-bit length (PS3.5 Table 7.1-1).
    private static let longVRs: Set<UInt16> = Set(["OB", "OD", "OF", "OL", "OV", "OW", "SQ", "SV", "UC", "UN", "UR", "UT", "UV"].map(vr))
    /// Tags read as sequences in an implicit-VR data set (whose headers do not say so) when their
    /// length is defined.
    private static let knownSequences: Set<UInt32> = [
        DICOMTag.sharedFunctionalGroups, DICOMTag.perFrameFunctionalGroups, DICOMTag.pixelMeasures, DICOMTag.planePositionSlide,
        DICOMTag.opticalPath,
    ]

    static func vr(_ letters: String) -> UInt16 {
        let bytes = Array(letters.utf8)
        return UInt16(bytes[0]) << 8 | UInt16(bytes[1])
    }

    /// The header at the stream's offset, the offset left at its value.
    ///
    /// - Throws: ``ImageDecodingError/truncated(reason:)`` for a header or value past the file's end.
    func nextElement() throws(ImageDecodingError) -> Element {
        let group = try stream.readLittleEndian16(), number = try stream.readLittleEndian16()
        let tag = UInt32(group) << 16 | UInt32(number)
        let vr: UInt16
        let rawLength: Int
        if group == 0xFFFE || !explicitVR && group != 0x0002 {
            // Items and delimiters never carry a VR; implicit headers are tag and 32-bit length.
            rawLength = try stream.readLittleEndian32()
            vr = Self.knownSequences.contains(tag) ? Self.sq : Self.un
        } else {
            let letters = try stream.readExactly(2)
            vr = UInt16(letters[0]) << 8 | UInt16(letters[1])
            if Self.longVRs.contains(vr) {
                stream.skip(2)
                rawLength = try stream.readLittleEndian32()
            } else {
                rawLength = try stream.readLittleEndian16()
            }
        }
        let length: Int? = rawLength == 0xFFFF_FFFF ? nil : rawLength
        if let length, length > stream.length - stream.offset {
            throw .truncated(reason: "a DICOM element of \(length) bytes runs past the end of the file")
        }
        return Element(tag: tag, vr: vr, length: length, valueOffset: stream.offset)
    }

    /// The value of `element` (whose value the stream is at), at most `limit` bytes.
    func value(_ element: Element, limit: Int) throws(ImageDecodingError) -> [UInt8] {
        guard let length = element.length else { throw .corrupt(reason: "a DICOM value of undefined length where one was expected") }
        guard length <= limit else { throw .corrupt(reason: "a DICOM value of \(length) bytes, over the \(limit) expected") }
        return try stream.readExactly(length)
    }

    /// The text of `element` (CS, UI, IS, DS, LO…): its bytes with padding spaces and NULs dropped.
    func text(_ element: Element) throws(ImageDecodingError) -> String {
        let bytes = try value(element, limit: 4096)
        return String(decoding: bytes, as: UTF8.self).trimmingDICOMPadding
    }

    /// The first unsigned 16-bit value of `element` (US), or nil when it has none.
    func uint16(_ element: Element) throws(ImageDecodingError) -> Int? {
        let bytes = try value(element, limit: 4096)
        return bytes.count >= 2 ? Int(bytes[0]) | Int(bytes[1]) << 8 : nil
    }

    /// The unsigned 16-bit values of `element` (US with several values).
    func uint16s(_ element: Element) throws(ImageDecodingError) -> [Int] {
        let bytes = try value(element, limit: 4096)
        return stride(from: 0, to: bytes.count - 1, by: 2).map { Int(bytes[$0]) | Int(bytes[$0 + 1]) << 8 }
    }

    /// The first 32-bit value of `element` (UL; SL read as signed), or nil when it has none.
    func int32(_ element: Element, signed: Bool = false) throws(ImageDecodingError) -> Int? {
        let bytes = try value(element, limit: 4096)
        guard bytes.count >= 4 else { return nil }
        let raw = UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 24
        return signed ? Int(Int32(bitPattern: raw)) : Int(raw)
    }

    /// Steps over the value of `element`: its length, or for an undefined length its items up to
    /// the sequence's delimiter (`depth` levels deep already).
    func skip(_ element: Element, depth: Int) throws(ImageDecodingError) {
        if let length = element.length {
            stream.seek(to: element.valueOffset + length)
        } else {
            // An explicit UN of undefined length is a sequence coded implicitly (PS3.5 §6.2.2).
            var inner = self
            if element.vr == Self.un { inner.explicitVR = false }
            try inner.forEachItem(of: element, depth: depth) { _, end throws(ImageDecodingError) in
                try inner.skipItem(until: end, depth: depth + 1)
            }
        }
    }

    /// Calls `body` with the index of each item of sequence `element` and the item's end (nil for
    /// an item of undefined length, ended by its delimiter), the stream at the item's first element;
    /// `body` leaves the stream at the item's end.
    func forEachItem(
        of element: Element, depth: Int, _ body: (Int, Int?) throws(ImageDecodingError) -> Void
    ) throws(ImageDecodingError) {
        guard depth < Self.maximumDepth else { throw .corrupt(reason: "DICOM sequences nested over \(Self.maximumDepth) deep") }
        let end = element.length.map { element.valueOffset + $0 }
        var index = 0
        while end.map({ stream.offset < $0 }) ?? true {
            let item = try nextElement()
            if item.tag == DICOMTag.sequenceDelimiter { break }
            guard item.tag == DICOMTag.item else { throw .corrupt(reason: "a DICOM sequence holds something other than items") }
            try body(index, item.length.map { item.valueOffset + $0 })
            index += 1
        }
        if let end { stream.seek(to: end) }
    }

    /// Calls `body` with each element of each item of sequence `element` and the item's index;
    /// `body` reads or skips the element's value.
    func forEachElement(
        inItemsOf element: Element, depth: Int, _ body: (Int, Element) throws(ImageDecodingError) -> Void
    ) throws(ImageDecodingError) {
        try forEachItem(of: element, depth: depth) { index, end throws(ImageDecodingError) in
            try forEachElement(until: end) { inner throws(ImageDecodingError) in try body(index, inner) }
        }
    }

    /// Steps over the rest of an item ending at `end` (nil: at its delimiter).
    func skipItem(until end: Int?, depth: Int) throws(ImageDecodingError) {
        if let end {
            stream.seek(to: end)
            return
        }
        try forEachElement(until: nil) { element throws(ImageDecodingError) in try skip(element, depth: depth) }
    }

    /// Calls `body` with each element up to `end` (nil: up to an item delimiter, which is read);
    /// `body` reads or skips the element's value.
    func forEachElement(until end: Int?, _ body: (Element) throws(ImageDecodingError) -> Void) throws(ImageDecodingError) {
        while end.map({ stream.offset < $0 }) ?? true {
            if end == nil, stream.isAtEnd { throw .truncated(reason: "a DICOM item ends past the end of the file") }
            let element = try nextElement()
            if element.tag == DICOMTag.itemDelimiter { return }
            try body(element)
        }
    }

    /// Sequences nested deeper than this are refused: WSI's deepest is three.
    static let maximumDepth = 12
}

/// The data elements a whole-slide reader looks at (PS3.6), as ``DICOMElementReader/Element/tag``s.
enum DICOMTag {
    static let transferSyntax: UInt32 = 0x0002_0010
    static let imageType: UInt32 = 0x0008_0008
    static let sopClass: UInt32 = 0x0008_0016
    static let seriesInstance: UInt32 = 0x0020_000E
    static let dimensionOrganizationType: UInt32 = 0x0020_9311
    static let samplesPerPixel: UInt32 = 0x0028_0002
    static let photometricInterpretation: UInt32 = 0x0028_0004
    static let planarConfiguration: UInt32 = 0x0028_0006
    static let numberOfFrames: UInt32 = 0x0028_0008
    static let rows: UInt32 = 0x0028_0010
    static let columns: UInt32 = 0x0028_0011
    static let pixelSpacing: UInt32 = 0x0028_0030
    static let bitsAllocated: UInt32 = 0x0028_0100
    static let iccProfile: UInt32 = 0x0028_2000
    static let pixelMeasures: UInt32 = 0x0028_9110
    static let totalPixelMatrixColumns: UInt32 = 0x0048_0006
    static let totalPixelMatrixRows: UInt32 = 0x0048_0007
    static let absentPixelCIELab: UInt32 = 0x0048_0015
    static let opticalPath: UInt32 = 0x0048_0105
    static let objectiveLensPower: UInt32 = 0x0048_0112
    static let planePositionSlide: UInt32 = 0x0048_021A
    static let columnPosition: UInt32 = 0x0048_021E
    static let rowPosition: UInt32 = 0x0048_021F
    static let sharedFunctionalGroups: UInt32 = 0x5200_9229
    static let perFrameFunctionalGroups: UInt32 = 0x5200_9230
    static let extendedOffsetTable: UInt32 = 0x7FE0_0001
    static let pixelData: UInt32 = 0x7FE0_0010
    static let item: UInt32 = 0xFFFE_E000
    static let itemDelimiter: UInt32 = 0xFFFE_E00D
    static let sequenceDelimiter: UInt32 = 0xFFFE_E0DD
}
