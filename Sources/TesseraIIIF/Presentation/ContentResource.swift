/// Something a canvas shows or a manifest links to (Presentation API 3.0 §3.4): an image with the
/// Image API service that serves it, a video, or a file offered as it is (a `rendering`).
public struct ContentResource: Sendable, Hashable, Encodable {
    /// Its URL.
    public var id: String
    /// `Image`, `Video`, `Sound`, `Text` (a PDF), `Dataset` (a TIFF as stored).
    public var type: String
    /// Its media type: `image/jpeg`, `video/mp4`, `application/pdf`.
    public var format: String?
    /// A name to show for it (a `rendering`'s link text).
    public var label: LanguageMap?
    /// Its size in pixels, for images and videos.
    public var width: Int?
    /// Its height in pixels.
    public var height: Int?
    /// Its length in seconds, for videos and sound.
    public var duration: Double?
    /// The Image API services that serve it at any region and size.
    public var service: [ImageServiceReference]

    /// A resource of `type` at `id`; the rest is set as needed.
    public init(
        id: String, type: String, format: String? = nil, label: LanguageMap? = nil, width: Int? = nil, height: Int? = nil,
        duration: Double? = nil, service: [ImageServiceReference] = []
    ) {
        self.id = id
        self.type = type
        self.format = format
        self.label = label
        self.width = width
        self.height = height
        self.duration = duration
        self.service = service
    }

    private enum CodingKeys: String, CodingKey {
        case id, type, label, format, width, height, duration, service
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(type, forKey: .type)
        try container.encodeIfPresent(label, forKey: .label)
        try container.encodeIfPresent(format, forKey: .format)
        try container.encodeIfPresent(width, forKey: .width)
        try container.encodeIfPresent(height, forKey: .height)
        try container.encodeIfPresent(duration, forKey: .duration)
        if !service.isEmpty { try container.encode(service, forKey: .service) }
    }
}

/// An IIIF Image API 3.0 service as a Presentation resource names it: its base URI (without
/// `/info.json`), `ImageService3`, and its compliance level.
public struct ImageServiceReference: Sendable, Hashable, Encodable {
    /// The service's base URI: the image's `id` in its info.json.
    public var id: String
    /// `ImageService3`.
    public var type = "ImageService3"
    /// `level0`, `level1` or `level2`.
    public var profile: String

    /// The level `profile` Image API 3.0 service at `id`.
    public init(id: String, profile: String = "level2") {
        self.id = id
        self.profile = profile
    }
}

/// A reference to another resource (§3.3.3 `partOf`, a collection's `items`): what it is, where
/// it is, and its label, and for a collection's items a thumbnail to show.
public struct ResourceReference: Sendable, Hashable, Encodable {
    /// Its URL (a manifest's or collection's JSON).
    public var id: String
    /// `Manifest`, `Collection`, `Canvas`.
    public var type: String
    /// Its name.
    public var label: LanguageMap?
    /// Images to show for it in a list.
    public var thumbnail: [ContentResource]

    /// A reference to the `type` at `id`.
    public init(id: String, type: String, label: LanguageMap? = nil, thumbnail: [ContentResource] = []) {
        self.id = id
        self.type = type
        self.label = label
        self.thumbnail = thumbnail
    }

    private enum CodingKeys: String, CodingKey {
        case id, type, label, thumbnail
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(type, forKey: .type)
        try container.encodeIfPresent(label, forKey: .label)
        if !thumbnail.isEmpty { try container.encode(thumbnail, forKey: .thumbnail) }
    }
}
