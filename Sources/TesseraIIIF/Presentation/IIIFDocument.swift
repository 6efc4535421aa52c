public import FoundationEssentials

/// A IIIF Presentation 3.0 manifest (§2.1): one described object (an image, a document, a
/// video, a folder of scans) as canvases in order, which viewers such as Mirador and Universal
/// Viewer open.
public typealias IIIFManifest = IIIFDocument<IIIFCanvas>

/// A IIIF Presentation 3.0 collection (§2.1): manifests and other collections in order, as a
/// folder holds files and folders.
public typealias IIIFCollection = IIIFDocument<ResourceReference>

/// What a Presentation document lists: a manifest's canvases, a collection's references.
public protocol PresentationItem: Sendable, Hashable, Encodable {
    /// The `type` of a document of these items: `Manifest`, `Collection`.
    static var documentType: String { get }
}

extension IIIFCanvas: PresentationItem {
    public static var documentType: String { "Manifest" }
}

extension ResourceReference: PresentationItem {
    public static var documentType: String { "Collection" }
}

/// A top-level Presentation 3.0 document: ``IIIFManifest`` or ``IIIFCollection``, by its items.
public struct IIIFDocument<Item: PresentationItem>: Sendable, Hashable, Encodable {
    /// Its URI: where its JSON is served.
    public var id: String
    /// What it says about itself.
    public var description: ResourceDescription
    /// Its items, in order: a manifest's canvases in reading order, a collection's manifests and
    /// collections.
    public var items: [Item]

    /// The document at `id` of `items`, described by `description`.
    public init(id: String, description: ResourceDescription, items: [Item]) {
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
        try container.encode(Item.documentType, forKey: .type)
        try description.encodeMembers(to: encoder)
        try container.encode(items, forKey: .items)
    }

    /// The JSON document (UTF-8, compact, keys sorted: `@context` first).
    public func json() throws -> Data { try PresentationJSON.encode(self) }

    /// The document's JSON around its items, to write a document of any length a piece at a time
    /// in bounded memory: `head` ends with `"items":[` and `tail` starts with `]`; between them go
    /// the items' ``json(of:)``, separated by commas. Together they are the bytes ``json()`` gives
    /// for the document with those items. This document's own items are left out.
    public func envelope() throws -> (head: Data, tail: Data) {
        var empty = self
        empty.items = []
        let whole = try empty.json()
        // Keys are sorted and nested members come after `items` or hold no `items` of their own;
        // inside a string every quote is escaped. The first `"items":[]` is the document's.
        let marker = Array(#""items":[]"#.utf8)
        let bytes = Array(whole)
        guard let start = bytes.indices.first(where: { bytes[$0...].starts(with: marker) }) else {
            throw EncodingError.invalidValue(self, .init(codingPath: [], debugDescription: "no items member"))
        }
        let open = start + marker.count - 1
        return (Data(bytes[..<open]), Data(bytes[open...]))
    }

    /// Items' JSON as they appear in ``json()``, separated by commas (one encoding for the lot).
    public static func json(of items: [Item]) throws -> Data {
        let list = try PresentationJSON.encode(items)
        // `[…]` less its brackets.
        return list.count > 2 ? list.dropFirst().dropLast() : Data()
    }
}
