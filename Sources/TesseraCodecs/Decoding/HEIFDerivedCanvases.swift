import TesseraCore

/// The output sizes of a HEIF file's derived images (`grid` and `iovl` items), read from the file
/// before libheif decodes it.
///
/// Why: libheif checks a derived image's `ispe` against its limits, but then allocates the canvas
/// the `grid` or `iovl` data states, which need not agree with it. A 4.5 KB HEIC whose `ispe` says
/// 64×64 and whose overlay says 23150×14650 made libheif 1.15 allocate three 339 MB planes
/// (FuzzDecodeHEIF). Every derived canvas is therefore checked against the decode's
/// ``AllocationLimits`` before any decode, so the primary image, its thumbnails and its alpha are
/// all covered.
///
/// The reader walks only the top-level `meta` box (`iinf`, `iloc`, `idat`) and reads at most a few
/// bytes of each derived item's data. It is lenient: a structure it cannot follow yields no
/// canvases, and libheif, which reads the same boxes, is left to reject the file.
struct HEIFDerivedCanvases {
    /// Each derived item's canvas, in stored pixels (before `irot` and `clap`).
    private(set) var sizes: [PixelSize] = []

    /// The derived item types whose data begins with an output size (ISO/IEC 23008-12, 6.6.2).
    private enum Derivation { case grid, overlay }

    private struct Location {
        var constructionMethod: Int
        var extents: [(offset: Int, length: Int)]
    }

    init(reading stream: ByteStream) {
        stream.seek(to: 0)
        var meta: Range<Int>?
        Self.forEachBox(in: 0..<stream.length, of: stream) { type, body in
            guard type == "meta" else { return true }
            meta = body
            return false
        }
        guard let meta, meta.count > 4 else { return }
        var derived: [Int: Derivation] = [:]
        var locations: [Int: Location] = [:]
        var itemData: Range<Int>?
        Self.forEachBox(in: meta.lowerBound + 4..<meta.upperBound, of: stream) { type, body in
            switch type {
            case "iinf": derived = Self.derivedItems(in: body, of: stream)
            case "iloc": locations = Self.locations(in: body, of: stream)
            case "idat": itemData = body
            default: break
            }
            return true
        }
        for (item, derivation) in derived {
            guard let location = locations[item],
                let header = Self.leadingBytes(18, of: location, itemData: itemData, stream: stream),
                let size = Self.outputSize(derivation, header: header)
            else { continue }
            sizes.append(size)
        }
    }

    /// Throws unless every derived canvas, as RGBA, is within `limits`.
    func check(_ limits: AllocationLimits) throws(ImageDecodingError) {
        for size in sizes { try limits.check(size, .rgba8) }
    }

    // MARK: - Boxes

    /// Calls `body` with each box's type and the byte range of its contents, in order, until it
    /// returns false or a box header does not fit in `range`.
    private static func forEachBox(
        in range: Range<Int>, of stream: ByteStream, _ body: (String, Range<Int>) -> Bool
    ) {
        var position = range.lowerBound
        while position + 8 <= range.upperBound {
            stream.seek(to: position)
            let header = stream.read(16)
            guard header.count >= 8 else { return }
            var size = Int(bigEndian: header, at: 0, count: 4)
            var headerLength = 8
            if size == 1 {
                guard header.count == 16 else { return }
                let large = UInt64(bigEndian: header, at: 8)
                guard large <= UInt64(Int.max) else { return }
                size = Int(large)
                headerLength = 16
            } else if size == 0 {
                size = range.upperBound - position
            }
            let (end, overflow) = position.addingReportingOverflow(size)
            guard size >= headerLength, !overflow, end <= range.upperBound else { return }
            let type = String(decoding: header[4..<8], as: UTF8.self)
            guard body(type, position + headerLength..<end) else { return }
            position = end
        }
    }

    /// The `grid` and `iovl` items listed in `iinf` (its `infe` boxes of version 2 and 3 name a type).
    private static func derivedItems(in body: Range<Int>, of stream: ByteStream) -> [Int: Derivation] {
        stream.seek(to: body.lowerBound)
        let head = stream.read(8)
        guard head.count == 8 else { return [:] }
        let entriesStart = body.lowerBound + (head[0] == 0 ? 6 : 8)  // full box + 16- or 32-bit count
        guard entriesStart <= body.upperBound else { return [:] }
        var items: [Int: Derivation] = [:]
        forEachBox(in: entriesStart..<body.upperBound, of: stream) { type, entry in
            guard type == "infe" else { return true }
            stream.seek(to: entry.lowerBound)
            let bytes = stream.read(min(entry.count, 14))
            guard bytes.count >= 4, bytes[0] == 2 || bytes[0] == 3 else { return true }
            let idLength = bytes[0] == 2 ? 2 : 4
            let typeAt = 4 + idLength + 2  // after the item ID and item_protection_index
            guard bytes.count >= typeAt + 4 else { return true }
            let item = Int(bigEndian: bytes, at: 4, count: idLength)
            switch String(decoding: bytes[typeAt..<typeAt + 4], as: UTF8.self) {
            case "grid": items[item] = .grid
            case "iovl": items[item] = .overlay
            default: break
            }
            return true
        }
        return items
    }

    /// Every item's construction method and extents, from `iloc` (versions 0, 1 and 2).
    private static func locations(in body: Range<Int>, of stream: ByteStream) -> [Int: Location] {
        stream.seek(to: body.lowerBound)
        guard let head = try? stream.readExactly(6), head[0] <= 2 else { return [:] }
        let version = Int(head[0])
        let offsetSize = Int(head[4] >> 4), lengthSize = Int(head[4] & 15), baseOffsetSize = Int(head[5] >> 4)
        let indexSize = version == 0 ? 0 : Int(head[5] & 15)
        let fieldSizes: Set<Int> = [0, 4, 8]
        guard fieldSizes.isSuperset(of: [offsetSize, lengthSize, baseOffsetSize, indexSize]) else { return [:] }
        let countSize = version < 2 ? 2 : 4
        var locations: [Int: Location] = [:]
        func field(_ size: Int) throws(ImageDecodingError) -> Int {
            guard size > 0, stream.offset + size <= body.upperBound else {
                if size == 0 { return 0 }
                throw .truncated(reason: "iloc")
            }
            let bytes = try stream.readExactly(size)
            let value = UInt64(bigEndian: bytes, at: 0, count: size)
            guard value <= UInt64(Int.max) else { throw .corrupt(reason: "an iloc offset over 2⁶³") }
            return Int(value)
        }
        do throws(ImageDecodingError) {
            let count = try field(countSize)
            for _ in 0..<count {
                let item = try field(countSize)
                var constructionMethod = 0
                if version > 0 { constructionMethod = try field(2) & 15 }
                _ = try field(2)  // data_reference_index: 0 is this file
                let base = try field(baseOffsetSize)
                let extentCount = try field(2)
                var extents: [(offset: Int, length: Int)] = []
                for _ in 0..<extentCount {
                    _ = try field(indexSize)
                    let (offset, overflow) = base.addingReportingOverflow(try field(offsetSize))
                    let length = try field(lengthSize)
                    guard !overflow else { throw .corrupt(reason: "an iloc offset past 2⁶³") }
                    if extents.count < 4 { extents.append((offset, length)) }  // plenty for 18 bytes
                }
                locations[item] = Location(constructionMethod: constructionMethod, extents: extents)
            }
        } catch {
            // What was read before the structure stopped making sense is kept.
        }
        return locations
    }

    /// Up to `count` bytes from the start of an item's data, from the file (construction method 0)
    /// or from `idat` (method 1); nil when there are none.
    private static func leadingBytes(
        _ count: Int, of location: Location, itemData: Range<Int>?, stream: ByteStream
    ) -> [UInt8]? {
        let within: Range<Int>
        switch location.constructionMethod {
        case 0: within = 0..<stream.length
        case 1: guard let itemData else { return nil }; within = itemData
        default: return nil
        }
        var bytes: [UInt8] = []
        for extent in location.extents where bytes.count < count {
            let (start, overflow) = within.lowerBound.addingReportingOverflow(extent.offset)
            guard !overflow, start < within.upperBound else { return nil }
            // A length of 0 means "to the end of the file" (or of idat).
            let available = within.upperBound - start
            let length = extent.length == 0 ? available : min(extent.length, available)
            stream.seek(to: start)
            bytes += stream.read(min(length, count - bytes.count))
        }
        return bytes.isEmpty ? nil : bytes
    }

    /// The output size at the start of a `grid` or `iovl` item's data: 16-bit fields unless bit 0 of
    /// its flags asks for 32-bit ones.
    private static func outputSize(_ derivation: Derivation, header: [UInt8]) -> PixelSize? {
        guard header.count >= 2, header[0] == 0 else { return nil }  // libheif reads version 0 only
        let fieldSize = header[1] & 1 == 0 ? 2 : 4
        let start = derivation == .grid ? 4 : 2 + 4 * 2  // rows and columns, or four fill values
        guard header.count >= start + 2 * fieldSize else { return nil }
        return PixelSize(
            width: Int(bigEndian: header, at: start, count: fieldSize),
            height: Int(bigEndian: header, at: start + fieldSize, count: fieldSize))
    }
}

extension UInt64 {
    /// The big-endian unsigned integer of `count` bytes (at most 8) at `index`.
    fileprivate init(bigEndian bytes: [UInt8], at index: Int, count: Int = 8) {
        self = bytes[index..<index + count].reduce(0) { $0 << 8 | UInt64($1) }
    }
}

extension Int {
    /// The big-endian unsigned integer of `count` bytes (at most 4) at `index`.
    fileprivate init(bigEndian bytes: [UInt8], at index: Int, count: Int) {
        self = Int(UInt64(bigEndian: bytes, at: index, count: count))
    }
}
