/// A canvas (Presentation API 3.0 §2.1): one page, image or video of a manifest, with its size
/// and the one resource painted on it, in full.
///
/// The painting is written as §3.4 lays it out: one `AnnotationPage` (`{canvas}/page`) of one
/// `painting` annotation (`{canvas}/page/painting`) whose target is the whole canvas.
public struct IIIFCanvas: Sendable, Hashable, Encodable {
    /// Its URI (`{manifest}/canvas/{n}`): unique within the manifest, and stable, so that links and
    /// annotations made on it keep pointing at it.
    public var id: String
    /// A name to show for it (a page number, a file name).
    public var label: LanguageMap?
    /// Its width and height in the canvas's own units: the content's pixels, upright.
    public var width: Int?
    /// Its height.
    public var height: Int?
    /// Its length in seconds, for time-based content.
    public var duration: Double?
    /// A small image of it, for strips and lists.
    public var thumbnail: [ContentResource]
    /// What is painted on it.
    public var content: ContentResource
    /// How large what it shows is, when its image's source says (a slide scanner's scale).
    public var physicalDimensions: PhysicalDimensionsService?

    /// A canvas `id` showing `content`, of `content`'s size and duration.
    public init(id: String, content: ContentResource, label: LanguageMap? = nil, thumbnail: [ContentResource] = []) {
        self.id = id
        self.content = content
        self.label = label
        self.thumbnail = thumbnail
        width = content.width
        height = content.height
        duration = content.duration
    }

    private enum CodingKeys: String, CodingKey {
        case id, type, label, width, height, duration, thumbnail, service, items
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode("Canvas", forKey: .type)
        try container.encodeIfPresent(label, forKey: .label)
        try container.encodeIfPresent(width, forKey: .width)
        try container.encodeIfPresent(height, forKey: .height)
        try container.encodeIfPresent(duration, forKey: .duration)
        if !thumbnail.isEmpty { try container.encode(thumbnail, forKey: .thumbnail) }
        if let physicalDimensions { try container.encode([physicalDimensions], forKey: .service) }
        let painting = Annotation(id: id + "/page/painting", body: content, target: id)
        try container.encode([AnnotationPage(id: id + "/page", items: [painting])], forKey: .items)
    }

    private struct AnnotationPage: Encodable {
        let id: String
        let type = "AnnotationPage"
        let items: [Annotation]
    }

    private struct Annotation: Encodable {
        let id: String
        let type = "Annotation"
        let motivation = "painting"
        let body: ContentResource
        let target: String
    }
}
