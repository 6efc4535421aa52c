public import FoundationEssentials

/// A IIIF Presentation 3.0 manifest (§2.1): one described object (an image, a document, a
/// video, a folder of scans) as canvases in order, which viewers such as Mirador and Universal
/// Viewer open.
public struct IIIFManifest: Sendable, Hashable, Encodable {
    /// Its URI: where its JSON is served.
    public var id: String
    /// What it says about itself.
    public var description: ResourceDescription
    /// Its canvases, in reading order.
    public var items: [IIIFCanvas]

    /// The manifest at `id` of `items`, described by `description`.
    public init(id: String, description: ResourceDescription, items: [IIIFCanvas]) {
        self.id = id
        self.description = description
        self.items = items
    }

    private enum CodingKeys: String, CodingKey {
        case context = "@context"
        case id, type, items
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(PresentationJSON.context, forKey: .context)
        try container.encode(id, forKey: .id)
        try container.encode("Manifest", forKey: .type)
        try description.encodeMembers(to: encoder)
        try container.encode(items, forKey: .items)
    }

    /// The JSON document (UTF-8, compact, keys sorted: `@context` first).
    public func json() throws -> Data { try PresentationJSON.encode(self) }
}

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
