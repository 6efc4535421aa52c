#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A baseline JPEG read from the middle: its restart markers (DRI) reset the entropy decoder's
/// state, so the data after one decodes on its own. The decoder is given the file's headers with
/// the frame's height shortened, then the data from the restart marker at the start of an MCU row
/// on, its markers renumbered from RST0 (libjpeg checks their sequence), and so decodes the rows
/// from there down without passing over the ones above: true random access, where
/// `jpeg_skip_scanlines` still entropy-decodes every row it skips.
///
/// Finding the marker costs a scan of the compressed bytes above it for `0xFF 0xDn` (a `memchr`,
/// gigabytes a second), not their decoding.
struct JPEGRestartSplice {
    /// The headers up to and including the scan header, the frame's height shortened by ``firstRow``.
    let prefix: [UInt8]
    /// The file offset of the entropy-coded data after the restart marker.
    let dataOffset: Int
    /// What to subtract (mod 8) from the number of each restart marker after it.
    let markerShift: Int
    /// The full-resolution row the spliced image starts at (a multiple of the MCU height).
    let firstRow: Int

    /// The most header bytes read looking for the scan (APP segments of profiles and previews).
    static let headerByteLimit = 4 << 20

    /// A splice of `file` that starts at or above full-resolution row `row`, as far down as the
    /// restart markers allow, or nil when there is none worth making (no restart markers, not a
    /// single-scan baseline JPEG, a row in the first restart interval, anything unexpected). The
    /// file's position is left anywhere.
    static func find(in file: UnsafeMutablePointer<FILE>, startingAtOrAbove row: Int) -> JPEGRestartSplice? {
        guard row > 0, fseeko(file, 0, SEEK_SET) == 0 else { return nil }
        var reader = ChunkReader(file: file)
        guard reader.byte() == 0xFF, reader.byte() == 0xD8 else { return nil }
        var frame: (height: Int, width: Int, heightOffset: Int, mcu: (width: Int, height: Int), components: Int)?
        var interval = 0
        // Segments up to the scan header.
        while true {
            guard reader.offset < headerByteLimit, reader.byte() == 0xFF else { return nil }
            var marker = reader.byte()
            while marker == 0xFF { marker = reader.byte() }
            guard let marker, marker != 0xD9, !(0xD0...0xD8).contains(marker) else { return nil }
            let segmentStart = reader.offset
            guard let high = reader.byte(), let low = reader.byte() else { return nil }
            let length = Int(high) << 8 | Int(low)
            guard length >= 2 else { return nil }
            switch marker {
            case 0xC0, 0xC1:  // baseline or extended sequential, Huffman
                guard length >= 8, let body = reader.bytes(length - 2) else { return nil }
                let height = Int(body[1]) << 8 | Int(body[2]), width = Int(body[3]) << 8 | Int(body[4])
                let count = Int(body[5])
                guard height > 0, width > 0, count > 0, body.count >= 6 + 3 * count else { return nil }
                var maxH = 1, maxV = 1
                for index in 0..<count {
                    let sampling = body[6 + 3 * index + 1]
                    maxH = max(maxH, Int(sampling >> 4))
                    maxV = max(maxV, Int(sampling & 0x0F))
                }
                // A single component is coded in 8×8 blocks whatever its sampling factors say.
                let mcu = count == 1 ? (8, 8) : (8 * maxH, 8 * maxV)
                frame = (height, width, segmentStart + 3, mcu, count)
            case 0xC2...0xCF where marker != 0xC4 && marker != 0xC8 && marker != 0xCC:
                return nil  // progressive, lossless, arithmetic: no single sequential scan to enter
            case 0xDD:
                guard length == 4, let body = reader.bytes(2) else { return nil }
                interval = Int(body[0]) << 8 | Int(body[1])
            case 0xDA:
                guard let body = reader.bytes(length - 2), let frame, body.first.map(Int.init) == frame.components else { return nil }
                return splice(reader: &reader, frame: frame, interval: interval, row: row)
            default:
                guard reader.skip(length - 2) else { return nil }
            }
        }
    }

    private static func splice(
        reader: inout ChunkReader, frame: (height: Int, width: Int, heightOffset: Int, mcu: (width: Int, height: Int), components: Int),
        interval: Int, row: Int
    ) -> JPEGRestartSplice? {
        guard interval > 0 else { return nil }
        let mcusPerRow = (frame.width + frame.mcu.width - 1) / frame.mcu.width
        // MCU rows that begin a restart interval: every `step`-th.
        let step = interval / gcd(interval, mcusPerRow)
        let mcuRow = row / frame.mcu.height / step * step
        guard mcuRow > 0, mcuRow * frame.mcu.height < frame.height else { return nil }
        let markerCount = mcuRow * mcusPerRow / interval
        let headerEnd = reader.offset
        guard let offset = reader.offsetAfterRestartMarker(markerCount) else { return nil }
        guard var prefix = reader.prefix(headerEnd) else { return nil }
        let height = frame.height - mcuRow * frame.mcu.height
        prefix[frame.heightOffset] = UInt8(height >> 8)
        prefix[frame.heightOffset + 1] = UInt8(height & 0xFF)
        return JPEGRestartSplice(prefix: prefix, dataOffset: offset, markerShift: markerCount % 8, firstRow: mcuRow * frame.mcu.height)
    }

    private static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }

    /// Sequential reads of a file in chunks, keeping the bytes read so far up to the scan header
    /// (for the prefix).
    private struct ChunkReader {
        let file: UnsafeMutablePointer<FILE>
        private var chunk = [UInt8](repeating: 0, count: 1 << 16)
        private var chunkCount = 0
        private var position = 0
        private var chunkStart = 0
        private var header: [UInt8] = []
        private var keepsHeader = true

        init(file: UnsafeMutablePointer<FILE>) { self.file = file }

        /// Bytes read so far.
        var offset: Int { chunkStart + position }

        private mutating func refill() -> Bool {
            chunkStart += chunkCount
            position = 0
            chunkCount = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if keepsHeader { header += chunk[0..<chunkCount] }
            return chunkCount > 0
        }

        mutating func byte() -> UInt8? {
            if position == chunkCount, !refill() { return nil }
            defer { position += 1 }
            return chunk[position]
        }

        mutating func bytes(_ count: Int) -> [UInt8]? {
            var result: [UInt8] = []
            result.reserveCapacity(count)
            for _ in 0..<count {
                guard let byte = byte() else { return nil }
                result.append(byte)
            }
            return result
        }

        mutating func skip(_ count: Int) -> Bool {
            for _ in 0..<count where byte() == nil { return false }
            return true
        }

        /// The first `count` bytes of the file.
        func prefix(_ count: Int) -> [UInt8]? { header.count >= count ? Array(header[0..<count]) : nil }

        /// The offset just after the `count`-th restart marker of the entropy-coded data that
        /// starts here, or nil when another marker (or the end) comes first. Stops keeping the
        /// header: only what was read before this call is the prefix.
        mutating func offsetAfterRestartMarker(_ count: Int) -> Int? {
            let headerBytes = offset
            header.removeSubrange(min(header.count, headerBytes)...)
            keepsHeader = false
            var found = 0
            while true {
                if position == chunkCount, !refill() { return nil }
                // The next 0xFF in this chunk.
                let next = chunk.withUnsafeBytes { buffer -> Int? in
                    let base = buffer.baseAddress! + position
                    return memchr(base, 0xFF, chunkCount - position).map { UnsafeRawPointer($0) - buffer.baseAddress! }
                }
                guard let next else {
                    position = chunkCount
                    continue
                }
                position = next + 1
                guard var marker = byte() else { return nil }
                while marker == 0xFF { guard let following = byte() else { return nil }; marker = following }
                if marker == 0x00 { continue }  // a stuffed 0xFF data byte
                guard (0xD0...0xD7).contains(marker) else { return nil }
                found += 1
                if found == count { return offset }
            }
        }
    }
}
