/// What a manifest or collection says about itself (Presentation API 3.0 §3.1–3.3), beside its
/// items: what a generator knows (the file's name, size, format) and what a curator adds.
public struct ResourceDescription: Sendable, Hashable {
    /// Its name (required).
    public var label: LanguageMap
    /// A sentence or two about it; may hold the HTML §4.4 allows.
    public var summary: LanguageMap?
    /// Label–value pairs to show (size, format, pages; a curator's fields).
    public var metadata: [LabelValue] = []
    /// What must be shown with it (attribution, a licence's wording).
    public var requiredStatement: LabelValue?
    /// A licence or rights statement URI (Creative Commons, RightsStatements.org).
    public var rights: String?
    /// A date for navigation, `YYYY-MM-DDThh:mm:ssZ`.
    public var navDate: String?
    /// `left-to-right`, `right-to-left`, `top-to-bottom` or `bottom-to-top`.
    public var viewingDirection: String?
    /// How to present it: `paged`, `individuals`, `continuous`, …
    public var behavior: [String] = []
    /// Small images of it.
    public var thumbnail: [ContentResource] = []
    /// Other forms of it to download: the original file.
    public var rendering: [ContentResource] = []
    /// What it is part of: the collection of its folder.
    public var partOf: [ResourceReference] = []

    /// A description with `label` and nothing else.
    public init(label: LanguageMap) {
        self.label = label
    }

    private enum Key: String, CodingKey {
        case label, summary, metadata, requiredStatement, rights, navDate, viewingDirection, behavior, thumbnail, rendering, partOf
    }

    /// Writes the members that are set, in the specification's order, into an object being encoded.
    func encodeMembers(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(label, forKey: .label)
        try container.encodeIfPresent(summary, forKey: .summary)
        if !metadata.isEmpty { try container.encode(metadata, forKey: .metadata) }
        try container.encodeIfPresent(requiredStatement, forKey: .requiredStatement)
        try container.encodeIfPresent(rights, forKey: .rights)
        try container.encodeIfPresent(navDate, forKey: .navDate)
        try container.encodeIfPresent(viewingDirection, forKey: .viewingDirection)
        if !behavior.isEmpty { try container.encode(behavior, forKey: .behavior) }
        if !thumbnail.isEmpty { try container.encode(thumbnail, forKey: .thumbnail) }
        if !rendering.isEmpty { try container.encode(rendering, forKey: .rendering) }
        if !partOf.isEmpty { try container.encode(partOf, forKey: .partOf) }
    }
}
