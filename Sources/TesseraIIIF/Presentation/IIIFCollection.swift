public import FoundationEssentials

/// A IIIF Presentation 3.0 collection (§2.1): manifests and other collections in order, as a
/// folder holds files and folders.
public struct IIIFCollection: Sendable, Hashable, Encodable {
    /// Its URI: where its JSON is served.
    public var id: String
    /// What it says about itself.
    public var description: ResourceDescription
    /// The manifests and collections in it, in order.
    public var items: [ResourceReference]

    /// The collection at `id` of `items`, described by `description`.
    public init(id: String, description: ResourceDescription, items: [ResourceReference]) {
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
        try container.encode("Collection", forKey: .type)
        try description.encodeMembers(to: encoder)
        try container.encode(items, forKey: .items)
    }

    /// The JSON document (UTF-8, compact, keys sorted: `@context` first).
    public func json() throws -> Data { try PresentationJSON.encode(self) }
}
