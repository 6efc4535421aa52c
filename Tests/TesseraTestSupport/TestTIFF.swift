public import FoundationEssentials
public import TesseraCore

/// Baseline TIFFs written byte by byte (little-endian, uncompressed, chunky 8-bit RGB; the
/// machine's `vips` and `tiffcp` are bench tools, not installed for the tests): one level in
/// strips, or levels in tiles, each directory after the first a reduced image, as `vips tiffsave
/// --tile --pyramid` writes them. Tiles at the edges are stored whole, padded with magenta, which
/// must never show.
public enum TestTIFF {
    /// Rows a strip, or the side of square tiles, in pixels.
    public enum Layout: Sendable {
        case strips(rows: Int)
        case tiles(Int)
    }

    /// `levels` (RGB, 8-bit) as one TIFF, each a directory; `iccProfile`, when given, in the first
    /// directory's tag 34675.
    public static func encode(
        _ levels: [PixelBuffer], layout: Layout, orientation: Orientation = .up, iccProfile: [UInt8]? = nil
    ) -> Data {
        var file = Writer()
        for (index, level) in levels.enumerated() {
            var offsets: [UInt32] = [], counts: [UInt32] = []
            let rowBytes = level.width * 3
            switch layout {
            case .strips(let rows):
                for top in stride(from: 0, to: level.height, by: rows) {
                    offsets.append(UInt32(file.out.count))
                    let end = min(level.height, top + rows) * rowBytes
                    file.out.append(contentsOf: level.bytes[(top * rowBytes)..<end])
                    counts.append(UInt32(end - top * rowBytes))
                }
            case .tiles(let tile):
                for top in stride(from: 0, to: level.height, by: tile) {
                    for left in stride(from: 0, to: level.width, by: tile) {
                        offsets.append(UInt32(file.out.count))
                        file.appendTile(of: level, left: left, top: top, side: tile)
                        counts.append(UInt32(tile * tile * 3))
                    }
                }
            }
            file.appendDirectory(
                index: index, size: level.size, layout: layout, offsets: offsets, counts: counts, orientation: orientation,
                iccProfile: index == 0 ? iccProfile : nil)
        }
        return Data(file.out)
    }

    /// A tiled pyramid of `levelSizes` in which every tile of a level is the same stored bytes, the
    /// top-left `side`×`side` of `tiles[level]` (RGB, 8-bit, at least that large): a file of a few
    /// tiles' bytes for an image of any area, as a giant pyramidal TIFF is to every reader but its
    /// pixels.
    public static func encodeRepeatingTiles(levelSizes: [PixelSize], tiles: [PixelBuffer], side: Int) -> Data {
        var file = Writer()
        for (index, size) in levelSizes.enumerated() {
            let stored = UInt32(file.out.count)
            file.appendTile(of: tiles[index], left: 0, top: 0, side: side)
            let count = ((size.width + side - 1) / side) * ((size.height + side - 1) / side)
            file.appendDirectory(
                index: index, size: size, layout: .tiles(side), offsets: Array(repeating: stored, count: count),
                counts: Array(repeating: UInt32(side * side * 3), count: count), orientation: .up, iccProfile: nil)
        }
        return Data(file.out)
    }

    /// The bytes of a TIFF being written: its header, then pieces and directories in turn.
    struct Writer {
        var out: [UInt8] = Array("II*\0".utf8) + [0, 0, 0, 0]
        /// Where the pointer to the next directory goes.
        var pointer = 4

        mutating func patch(_ at: Int, _ value: UInt32) {
            withUnsafeBytes(of: value.littleEndian) { out.replaceSubrange(at..<(at + 4), with: $0) }
        }
        mutating func append32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) } }
        mutating func append16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) } }

        /// The tile of `level` at (`left`, `top`), stored whole: padded with magenta past its edges.
        mutating func appendTile(of level: PixelBuffer, left: Int, top: Int, side: Int) {
            let padding: [UInt8] = (0..<(side * 3)).map { $0 % 3 == 1 ? 0 : 255 }
            let rowBytes = level.width * 3
            let width = min(side, level.width - left)
            for y in top..<(top + side) {
                if y < level.height {
                    out.append(contentsOf: level.bytes[(y * rowBytes + left * 3)..<(y * rowBytes + (left + width) * 3)])
                    out.append(contentsOf: padding[..<((side - width) * 3)])
                } else {
                    out.append(contentsOf: padding)
                }
            }
        }

        /// The directory of image `index` (after the first, a reduced image) whose pieces are at `offsets`.
        mutating func appendDirectory(
            index: Int, size: PixelSize, layout: Layout, offsets: [UInt32], counts: [UInt32], orientation: Orientation,
            iccProfile: [UInt8]?
        ) {
            if out.count % 2 == 1 { out.append(0) }  // values and directories start on a word boundary
            let bitsAt = UInt32(out.count)
            [8, 8, 8].forEach { append16($0) }
            let offsetsAt = UInt32(out.count)
            offsets.forEach { append32($0) }
            let countsAt = UInt32(out.count)
            counts.forEach { append32($0) }
            let profileAt = UInt32(out.count)
            if let iccProfile {
                out.append(contentsOf: iccProfile)
                if out.count % 2 == 1 { out.append(0) }
            }
            patch(pointer, UInt32(out.count))
            let count = UInt32(offsets.count)
            let offsetsEntry = count == 1 ? offsets[0] : offsetsAt, countsEntry = count == 1 ? counts[0] : countsAt
            // (tag, type, count, value or offset): SHORT 3, LONG 4; sorted by tag.
            var entries: [(UInt16, UInt16, UInt32, UInt32)] = [
                (254, 4, 1, index == 0 ? 0 : 1), (256, 4, 1, UInt32(size.width)), (257, 4, 1, UInt32(size.height)),
                (258, 3, 3, bitsAt), (259, 3, 1, 1), (262, 3, 1, 2),
            ]
            switch layout {
            case .strips(let rows):
                entries += [
                    (273, 4, count, offsetsEntry), (274, 3, 1, UInt32(orientation.rawValue)), (277, 3, 1, 3),
                    (278, 4, 1, UInt32(rows)), (279, 4, count, countsEntry), (284, 3, 1, 1),
                ]
            case .tiles(let tile):
                entries += [
                    (274, 3, 1, UInt32(orientation.rawValue)), (277, 3, 1, 3), (284, 3, 1, 1), (322, 4, 1, UInt32(tile)),
                    (323, 4, 1, UInt32(tile)), (324, 4, count, offsetsEntry), (325, 4, count, countsEntry),
                ]
            }
            if let iccProfile { entries.append((34675, 7, UInt32(iccProfile.count), profileAt)) }
            append16(UInt16(entries.count))
            for (tag, type, count, value) in entries {
                append16(tag); append16(type); append32(count)
                if type == 3 && count == 1 { append16(UInt16(value)); append16(0) } else { append32(value) }
            }
            pointer = out.count
            append32(0)
        }
    }
}
