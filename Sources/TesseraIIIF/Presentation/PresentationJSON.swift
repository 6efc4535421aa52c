import FoundationEssentials

/// How Presentation documents are written and served.
public enum PresentationJSON {
    /// The Presentation API 3.0 JSON-LD context.
    public static let context = "http://iiif.io/api/presentation/3/context.json"
    /// The media type §6.1 asks for, with the context as its profile.
    public static let mediaType = "application/ld+json;profile=\"http://iiif.io/api/presentation/3/context.json\""

    /// `value` as one line of JSON (a member of another document); "{}" if it cannot be encoded.
    static func compact(_ value: some Encodable) -> String {
        (try? encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// Compact (a 2,000-page manifest is a quarter of its indented size), with sorted keys, so the
    /// same document is the same bytes in every process (entity tags made from them agree), and
    /// `@context` sorts first.
    static func encode(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }
}
