/// A JPEG tile as a TIFF stores it, made a file any JPEG reader takes as it is: a TIFF's tiles are
/// often abbreviated streams (no quantization or Huffman tables: those are in the directory's
/// shared JPEGTables, tag 347), and a tile coded in RGB rather than YCbCr says so only through the
/// directory's Photometric tag, which a browser never sees. The splice puts the tables after the
/// tile's SOI, and adds what the directory knew: an Adobe APP14 segment saying "RGB, not
/// transformed" (transform 0) and the ICC profile as APP2 `ICC_PROFILE` chunks.
///
/// No pixel is decoded: a stored tile served this way costs a copy of its bytes.
enum JPEGTileSplice {
    /// `tile` with `tables`' segments, the colour coding and the profile put in, or nil when either
    /// is not a JPEG stream (no SOI at its start, or tables that do not end with EOI).
    ///
    /// - Parameters:
    ///   - tables: the directory's JPEGTables (SOI, DQT/DHT segments, EOI), or nil when the tile is
    ///     a complete stream already.
    ///   - codedAsRGB: the components are R, G, B (Photometric 2), not YCbCr: without APP14 a reader
    ///     would take three components for YCbCr.
    ///   - profile: an ICC profile to embed, or nil.
    static func file(tile: [UInt8], tables: [UInt8]?, codedAsRGB: Bool, profile: [UInt8]?) -> [UInt8]? {
        guard isStream(tile) else { return nil }
        var segments: [UInt8] = []
        if let tables {
            guard isStream(tables), tables.count >= 4, tables[tables.count - 2] == 0xFF, tables[tables.count - 1] == 0xD9 else { return nil }
            segments += tables[2..<(tables.count - 2)]
        }
        if codedAsRGB, !hasSegment(0xEE, in: tile) { segments += adobeRGB }
        if let profile, !profile.isEmpty { segments += profileSegments(profile) }
        var file: [UInt8] = [0xFF, 0xD8]
        file.reserveCapacity(tile.count + segments.count)
        file += segments
        file += tile[2...]
        return file
    }

    private static func isStream(_ bytes: [UInt8]) -> Bool { bytes.count >= 4 && bytes[0] == 0xFF && bytes[1] == 0xD8 }

    /// APP14 "Adobe", version 100, flags 0 and 0, transform 0: components stored as they are (RGB).
    private static let adobeRGB: [UInt8] = [0xFF, 0xEE, 0x00, 0x0E] + Array("Adobe".utf8) + [0x00, 0x64, 0, 0, 0, 0, 0]

    /// Whether the segments before the scan include marker `0xFF marker` (APPn and tables have a
    /// length after the marker; standalone markers have none).
    private static func hasSegment(_ marker: UInt8, in stream: [UInt8]) -> Bool {
        var offset = 2
        while offset + 4 <= stream.count, stream[offset] == 0xFF {
            let code = stream[offset + 1]
            if code == marker { return true }
            if code == 0xDA || code == 0xD9 { return false }
            offset += 2 + (Int(stream[offset + 2]) << 8 | Int(stream[offset + 3]))
        }
        return false
    }

    /// ICC.1 Annex B: "ICC_PROFILE\0", the chunk's number from 1, the chunk count, at most 65,519
    /// bytes of the profile each.
    private static func profileSegments(_ profile: [UInt8]) -> [UInt8] {
        let chunkLimit = 65_519
        let count = (profile.count + chunkLimit - 1) / chunkLimit
        guard count <= 255 else { return [] }
        var segments: [UInt8] = []
        for (index, start) in stride(from: 0, to: profile.count, by: chunkLimit).enumerated() {
            let chunk = profile[start..<min(profile.count, start + chunkLimit)]
            let length = 2 + 12 + 2 + chunk.count
            segments += [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)] + Array("ICC_PROFILE\0".utf8)
            segments += [UInt8(index + 1), UInt8(count)]
            segments += chunk
        }
        return segments
    }
}
