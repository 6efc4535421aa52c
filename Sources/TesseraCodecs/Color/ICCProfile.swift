/// An ICC colour profile embedded in an image: its bytes as stored, checked, with the facts a host
/// shows (colour space, description). Parsing is done here, in bounds-checked Swift; LittleCMS sees
/// only profiles that passed (see `ColorConverter`).
public struct ICCProfile: Sendable, Hashable {
    /// The colour space of the data the profile describes (its header's data colour space).
    public enum ColorSpace: String, Sendable, Hashable, Codable {
        /// Red, green, blue (`RGB `).
        case rgb = "RGB"
        /// One grey channel (`GRAY`).
        case gray = "GRAY"
        /// Cyan, magenta, yellow, black (`CMYK`): print profiles.
        case cmyk = "CMYK"
        /// CIELAB (`Lab `).
        case lab = "Lab"
        /// Any other colour space the header names.
        case other
    }

    /// The profile's bytes, exactly as embedded (what `--keep-profile` writes back).
    public let data: [UInt8]
    /// The colour space of the pixels the profile describes, from its header.
    public let colorSpace: ColorSpace
    /// The `desc` tag's text (v2 `desc` or v4 `mluc`, English first), if the profile has one.
    public let description: String?

    /// The largest profile accepted, in bytes. Real ones are 0.5–600 KB (a CMYK profile with
    /// large lookup tables); this keeps a hostile header from making anyone allocate more.
    public static let maximumByteCount = 4 << 20

    /// Checks `data` as ICC.1 lays a profile out: a 128-byte header with the `acsp` signature and
    /// a declared size within the bytes, a tag count that fits, every tag inside the profile.
    /// - Throws: ``ICCProfileError`` saying what is wrong; callers ignore such a profile.
    public init(validating data: [UInt8]) throws(ICCProfileError) {
        guard data.count >= 132 else { throw ICCProfileError("\(data.count) bytes, shorter than an ICC header") }
        guard data.count <= Self.maximumByteCount else { throw ICCProfileError("\(data.count) bytes, over \(Self.maximumByteCount)") }
        let declared = Int(Self.uint32(data, 0))
        guard declared >= 132, declared <= data.count else {
            throw ICCProfileError("its header declares \(declared) bytes, it has \(data.count)")
        }
        guard Array(data[36..<40]) == Array("acsp".utf8) else { throw ICCProfileError("no 'acsp' signature") }
        let tagCount = Int(Self.uint32(data, 128))
        guard tagCount <= (declared - 132) / 12 else { throw ICCProfileError("its header claims \(tagCount) tags") }
        var tags: [String: (offset: Int, size: Int)] = [:]
        for index in 0..<tagCount {
            let entry = 132 + index * 12
            let offset = Int(Self.uint32(data, entry + 4))
            let size = Int(Self.uint32(data, entry + 8))
            guard offset <= declared, size <= declared - offset else { throw ICCProfileError("a tag lies outside the profile") }
            tags[String(decoding: data[entry..<entry + 4], as: UTF8.self)] = (offset, size)
        }
        self.data = data.count == declared ? data : Array(data[..<declared])
        colorSpace =
            switch String(decoding: data[16..<20], as: UTF8.self) {
            case "RGB ": .rgb
            case "GRAY": .gray
            case "CMYK": .cmyk
            case "Lab ": .lab
            default: .other
            }
        description = tags["desc"].flatMap { Self.text(data[$0.offset..<$0.offset + $0.size]) }
    }

    /// The text of a `desc` (ICC v2 textDescriptionType) or `mluc` (v4) tag, trimmed.
    private static func text(_ tag: ArraySlice<UInt8>) -> String? {
        let bytes = Array(tag)
        guard bytes.count >= 12 else { return nil }
        switch String(decoding: bytes[0..<4], as: UTF8.self) {
        case "desc":
            let count = Int(uint32(bytes, 8))
            guard count > 0, count <= bytes.count - 12 else { return nil }
            return clean(String(decoding: bytes[12..<12 + count].prefix { $0 != 0 }, as: UTF8.self))
        case "mluc":
            let records = Int(uint32(bytes, 8))
            guard records > 0, uint32(bytes, 12) == 12, records <= (bytes.count - 16) / 12 else { return nil }
            // English if present, else the first record.
            let chosen = (0..<records).first { bytes[16 + $0 * 12] == UInt8(ascii: "e") && bytes[17 + $0 * 12] == UInt8(ascii: "n") } ?? 0
            let record = 16 + chosen * 12
            let length = Int(uint32(bytes, record + 4))
            let offset = Int(uint32(bytes, record + 8))
            guard offset <= bytes.count, length <= bytes.count - offset, length % 2 == 0 else { return nil }
            let units = stride(from: offset, to: offset + length, by: 2).map { UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]) }
            return clean(String(decoding: units, as: UTF16.self))
        default:
            return nil
        }
    }

    private static func clean(_ text: String) -> String? {
        let trimmed = text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }
        let result = String(String.UnicodeScalarView(trimmed)).trimmingCharacters(in: " ")
        return result.isEmpty ? nil : String(result.prefix(200))
    }

    private static func uint32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }
}

/// Why an embedded profile was ignored.
public struct ICCProfileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong with the profile, in a few words (`30 bytes, shorter than an ICC header`).
    public let reason: String

    init(_ reason: String) { self.reason = reason }

    public var description: String { "ignored the embedded ICC profile: \(reason)" }
}

private extension String {
    func trimmingCharacters(in character: Character) -> Substring {
        var text = self[...]
        while text.first == character { text = text.dropFirst() }
        while text.last == character { text = text.dropLast() }
        return text
    }
}
