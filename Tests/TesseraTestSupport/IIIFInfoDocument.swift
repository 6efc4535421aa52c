/// An IIIF Image API 3 info.json as a client reads it, for the tests of the document (TesseraIIIF)
/// and of the routes that serve it (TesseraServer): decoded from the JSON by its own keys, not by
/// the types that write it, so a renamed or missing member fails the tests.
public struct IIIFInfoDocument: Decodable, Sendable {
    /// One entry of `sizes`.
    public struct Size: Decodable, Equatable, Sendable {
        public var width: Int, height: Int
        public init(width: Int, height: Int) { (self.width, self.height) = (width, height) }
    }

    /// One entry of `tiles`.
    public struct Tile: Decodable, Equatable, Sendable {
        public var width: Int, height: Int, scaleFactors: [Int]
        public init(width: Int, height: Int, scaleFactors: [Int]) {
            (self.width, self.height, self.scaleFactors) = (width, height, scaleFactors)
        }
    }

    public var context: String
    public var id: String
    public var type: String
    public var `protocol`: String
    public var profile: String
    public var width: Int
    public var height: Int
    public var maxWidth: Int?
    public var maxHeight: Int?
    public var maxArea: Int?
    public var sizes: [Size]?
    public var tiles: [Tile]?
    public var extraFormats: [String]?
    public var extraQualities: [String]?
    public var extraFeatures: [String]?

    enum CodingKeys: String, CodingKey {
        case context = "@context"
        case id, type, `protocol`, profile, width, height, maxWidth, maxHeight, maxArea
        case sizes, tiles, extraFormats, extraQualities, extraFeatures
    }
}
