public import FoundationEssentials
public import TesseraCore

/// What a curator adds to a generated manifest or collection, written beside what it describes:
/// `{file name}.iiif.json` beside a file, `_folder.iiif.json` in a folder. A JSON object of some of
/// `label`, `summary`, `metadata`, `requiredStatement`, `rights`, `navDate`, `viewingDirection`
/// and `behavior`, in Presentation 3.0's own forms (a language map may also be one plain string,
/// in no language).
///
/// Everything is checked as it is read: an unknown member, a value of the wrong form, a `rights`
/// that is not a Creative Commons or RightsStatements.org URI, a `navDate` without its time zone,
/// an unknown `viewingDirection` or `behavior` is a ``PresentationSidecarError``. HTML, where §4.4
/// allows it (`summary`, the values of `metadata` and `requiredStatement`), is sanitised
/// (``PresentationHTML``).
public struct PresentationSidecar: Sendable, Hashable {
    /// Replaces the generated label (the file or folder name).
    public var label: LanguageMap?
    /// A sentence or two.
    public var summary: LanguageMap?
    /// The curator's fields, shown before the generated ones (size, format…).
    public var metadata: [LabelValue] = []
    /// What must be shown with the resource.
    public var requiredStatement: LabelValue?
    /// A Creative Commons or RightsStatements.org URI, written with `http:` as the specification
    /// lists them.
    public var rights: String?
    /// `YYYY-MM-DDThh:mm:ss` with a time zone (`Z` or `±hh:mm`).
    public var navDate: String?
    /// `left-to-right`, `right-to-left`, `top-to-bottom` or `bottom-to-top`.
    public var viewingDirection: String?
    /// Replaces the generated behaviour (`paged` for documents).
    public var behavior: [String]?

    /// The largest sidecar read, in bytes.
    public static let maximumByteCount = 1 << 20

    static let members: Set<String> = [
        "label", "summary", "metadata", "requiredStatement", "rights", "navDate", "viewingDirection", "behavior",
    ]
    static let viewingDirections: Set<String> = ["left-to-right", "right-to-left", "top-to-bottom", "bottom-to-top"]
    /// §3.3.2's values.
    static let behaviors: Set<String> = [
        "auto-advance", "no-auto-advance", "repeat", "no-repeat", "unordered", "individuals", "continuous", "paged",
        "facing-pages", "non-paged", "multi-part", "together", "sequence", "thumbnail-nav", "no-nav", "hidden",
    ]

    /// Reads and checks a sidecar's bytes.
    /// - Throws: ``PresentationSidecarError`` saying what is wrong, and where.
    public init(json: Data) throws(PresentationSidecarError) {
        guard json.count <= Self.maximumByteCount else {
            throw PresentationSidecarError("it is \(json.count) bytes, over \(Self.maximumByteCount)")
        }
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: json)
        } catch {
            throw PresentationSidecarError("it is not JSON")
        }
        guard case .object(let members) = value else { throw PresentationSidecarError("it is not a JSON object") }
        for (key, value) in members {
            switch key {
            case "label": label = try Self.languageMap(value, "label")
            case "summary": summary = try Self.languageMap(value, "summary", html: true)
            case "metadata":
                guard case .array(let entries) = value else { throw PresentationSidecarError("metadata is not a list") }
                metadata = try entries.enumerated().map { index, entry throws(PresentationSidecarError) in
                    try Self.labelValue(entry, "metadata[\(index)]")
                }
            case "requiredStatement": requiredStatement = try Self.labelValue(value, "requiredStatement")
            case "rights": rights = try Self.rights(value)
            case "navDate":
                guard case .string(let date) = value, Self.isDateTime(date) else {
                    throw PresentationSidecarError("navDate is not a date and time with its zone (1901-01-01T00:00:00Z)")
                }
                navDate = date
            case "viewingDirection":
                guard case .string(let direction) = value, Self.viewingDirections.contains(direction) else {
                    throw PresentationSidecarError("viewingDirection is not one of \(Self.viewingDirections.sorted().joined(separator: ", "))")
                }
                viewingDirection = direction
            case "behavior":
                guard case .array(let values) = value else { throw PresentationSidecarError("behavior is not a list") }
                behavior = try values.map { value throws(PresentationSidecarError) in
                    guard case .string(let name) = value, Self.behaviors.contains(name) else {
                        throw PresentationSidecarError("behavior has a value Presentation 3.0 does not define")
                    }
                    return name
                }
            default:
                throw PresentationSidecarError(
                    "unknown member \"\(String(key.prefix(64)))\" (allowed: \(Self.members.sorted().joined(separator: ", ")))")
            }
        }
    }

    /// `description` with this sidecar's members put in: those it has replace the generated ones;
    /// its metadata goes before the generated entries.
    public func apply(to description: inout ResourceDescription) {
        if let label { description.label = label }
        if let summary { description.summary = summary }
        description.metadata = metadata + description.metadata
        if let requiredStatement { description.requiredStatement = requiredStatement }
        if let rights { description.rights = rights }
        if let navDate { description.navDate = navDate }
        if let viewingDirection { description.viewingDirection = viewingDirection }
        if let behavior { description.behavior = behavior }
    }

    // MARK: Reading members

    private static func languageMap(_ value: JSONValue, _ name: String, html: Bool = false) throws(PresentationSidecarError) -> LanguageMap {
        // Where §4.4 allows no HTML (labels), markup is refused rather than passed on as text:
        // viewers have rendered labels as HTML (UniversalViewer #307).
        func clean(_ text: String) throws(PresentationSidecarError) -> String {
            if html { return PresentationHTML.sanitized(text) }
            guard !PresentationHTML.containsMarkup(text) else {
                throw PresentationSidecarError("\(name) is plain text: HTML is allowed only in summary and in metadata and requiredStatement values")
            }
            return text
        }
        switch value {
        case .string(let text):
            return LanguageMap([try clean(text)])
        case .object(let languages):
            guard !languages.isEmpty else { throw PresentationSidecarError("\(name) has no language") }
            var entries: [(language: String, values: [String])] = []
            for (language, texts) in languages {
                guard language == "none" || isLanguageTag(language) else {
                    throw PresentationSidecarError("\(name) has a language that is no BCP 47 tag")
                }
                switch texts {
                case .string(let text): entries.append((language, [try clean(text)]))
                case .array(let list):
                    var values: [String] = []
                    for item in list {
                        guard case .string(let text) = item else { throw PresentationSidecarError("\(name) has a value that is not text") }
                        values.append(try clean(text))
                    }
                    entries.append((language, values))
                default: throw PresentationSidecarError("\(name) has a value that is not text")
                }
            }
            var map = LanguageMap([])
            map.entries = entries.sorted { $0.language < $1.language }
            return map
        default:
            throw PresentationSidecarError("\(name) is neither text nor a language map")
        }
    }

    private static func labelValue(_ value: JSONValue, _ name: String) throws(PresentationSidecarError) -> LabelValue {
        guard case .object(let members) = value, let label = members["label"], let text = members["value"], members.count == 2 else {
            throw PresentationSidecarError("\(name) is not {\"label\": …, \"value\": …}")
        }
        return LabelValue(label: try languageMap(label, name + ".label"), value: try languageMap(text, name + ".value", html: true))
    }

    private static func rights(_ value: JSONValue) throws(PresentationSidecarError) -> String {
        guard case .string(var uri) = value else { throw PresentationSidecarError("rights is not a URI") }
        if uri.hasPrefix("https://") { uri = "http://" + uri.dropFirst("https://".count) }
        let known = ["http://creativecommons.org/licenses/", "http://creativecommons.org/publicdomain/", "http://rightsstatements.org/vocab/"]
        guard known.contains(where: { uri.hasPrefix($0) }), uri.count < 256, !uri.contains(where: { $0.isWhitespace || $0 == "\"" }) else {
            throw PresentationSidecarError("rights is not a Creative Commons or RightsStatements.org URI")
        }
        return uri
    }

    /// `YYYY-MM-DDThh:mm:ss`, optional fractions, then `Z` or `±hh:mm`.
    static func isDateTime(_ text: String) -> Bool {
        let characters = Array(text.utf8)
        func digits(_ range: Range<Int>) -> Bool {
            range.upperBound <= characters.count && range.allSatisfy { (48...57).contains(characters[$0]) }
        }
        guard characters.count >= 20, digits(0..<4), characters[4] == 45, digits(5..<7), characters[7] == 45, digits(8..<10),
            characters[10] == 84, digits(11..<13), characters[13] == 58, digits(14..<16), characters[16] == 58, digits(17..<19)
        else { return false }
        var index = 19
        if characters[index] == 46 {
            index += 1
            let start = index
            while index < characters.count, (48...57).contains(characters[index]) { index += 1 }
            guard index > start else { return false }
        }
        let zone = Array(characters[index...])
        if zone == [90] { return true }
        return zone.count == 6 && (zone[0] == 43 || zone[0] == 45) && zone[3] == 58
            && [1, 2, 4, 5].allSatisfy { (48...57).contains(zone[$0]) }
    }

    /// A plausible BCP 47 tag: letters, then `-`-separated letters and digits (`en`, `en-GB`, `zh-Hant`).
    static func isLanguageTag(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...8).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLetter }) else { return false }
        return parts.dropFirst().allSatisfy { (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
    }
}

/// Why a sidecar was not used: what is wrong with it, never a path.
public struct PresentationSidecarError: TesseraError, Equatable {
    /// What is wrong.
    public var reason: String

    init(_ reason: String) { self.reason = reason }

    public var category: ErrorCategory { .badInput }
    public var description: String { "sidecar: " + reason }
}

/// Any JSON value, for reading documents whose members are checked one by one.
enum JSONValue: Decodable, Hashable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }
}
