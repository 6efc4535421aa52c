/// A IIIF language map (Presentation API 3.0 §4.1): text by language, `{"en": ["Title"]}`, with
/// `none` for text in no language (file names, numbers). Languages keep the order they were given.
public struct LanguageMap: Sendable, Hashable, Encodable, ExpressibleByStringLiteral {
    /// Each language (a BCP 47 tag, or `none`) with its values, in order.
    public var entries: [(language: String, values: [String])] {
        get { languages.map { ($0, values[$0] ?? []) } }
        set {
            languages = newValue.map(\.language)
            values = Dictionary(newValue.map { ($0.language, $0.values) }, uniquingKeysWith: { $0 + $1 })
        }
    }
    private var languages: [String]
    private var values: [String: [String]]

    /// `values` in `language` (`none`: in no language).
    public init(_ values: [String], language: String = "none") {
        languages = [language]
        self.values = [language: values]
    }

    /// One text in no language.
    public init(stringLiteral value: String) {
        self.init([value])
    }

    /// One text in `language`.
    public static func text(_ value: String, language: String) -> LanguageMap {
        LanguageMap([value], language: language)
    }

    /// The values of `language`, if any.
    public subscript(language: String) -> [String]? { values[language] }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: DynamicKey.self)
        for language in languages { try container.encode(values[language] ?? [], forKey: DynamicKey(language)) }
    }
}

/// A `metadata` or `requiredStatement` entry (§3.3.1): a label and a value, both language maps.
public struct LabelValue: Sendable, Hashable, Encodable {
    /// What the value is (`Size`, `Format`).
    public var label: LanguageMap
    /// The value itself; may hold the few HTML tags the specification allows (§4.4).
    public var value: LanguageMap

    /// `label`: `value`.
    public init(label: LanguageMap, value: LanguageMap) {
        self.label = label
        self.value = value
    }
}

/// A JSON object key made at run time (a language, a sidecar's member).
struct DynamicKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
