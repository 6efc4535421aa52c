/// The HTML a Presentation 3.0 document may carry (§4.4), made safe on the way in: a value is HTML
/// only when it starts with `<` and ends with `>`; of it, only the tags the specification lets
/// clients keep pass (`a b br i img p small span sub sup`), with only `href` on `a` (`http:`,
/// `https:` or `mailto:`) and `src` (`http:`, `https:`) and `alt` on `img`. Comments, CDATA and
/// processing instructions are dropped, `script`, `style` and the like with their content; any
/// other tag is escaped, so it shows as the text it is. Viewers have run script from manifests
/// before (UniversalViewer #307, kitodo-presentation #527): a sidecar a curator writes never
/// reaches them unsanitised.
public enum PresentationHTML {
    /// The elements kept.
    static let allowedElements: Set<String> = ["a", "b", "br", "i", "img", "p", "small", "span", "sub", "sup"]
    /// Elements dropped with everything inside them.
    static let droppedWithContent: Set<String> = [
        "script", "style", "object", "embed", "iframe", "frame", "frameset", "applet", "template", "noscript", "textarea",
        "title", "xmp", "noembed", "noframes", "svg", "math", "select", "option",
    ]
    /// Elements with no end tag.
    static let voidElements: Set<String> = ["br", "img"]

    /// `value` as a document may carry it: plain text as it is; HTML with only what §4.4 allows,
    /// still starting with `<` and ending with `>` (wrapped in a `span` when sanitising left
    /// text at either end).
    public static func sanitized(_ value: String) -> String {
        guard value.hasPrefix("<"), value.hasSuffix(">") else { return value }
        var output = ""
        var scanner = Substring(value)
        while !scanner.isEmpty {
            if scanner.hasPrefix("<!--") {
                scanner = scanner.firstRange(of: "-->").map { scanner[$0.upperBound...] } ?? ""
            } else if scanner.hasPrefix("<![CDATA[") {
                scanner = scanner.firstRange(of: "]]>").map { scanner[$0.upperBound...] } ?? ""
            } else if scanner.hasPrefix("<!") || scanner.hasPrefix("<?") {
                scanner = scanner.firstIndex(of: ">").map { scanner[scanner.index(after: $0)...] } ?? ""
            } else if scanner.hasPrefix("<"), let tag = Tag(parsing: scanner) {
                scanner = scanner[tag.end...]
                if allowedElements.contains(tag.name) {
                    output += tag.isClosing ? (voidElements.contains(tag.name) ? "" : "</\(tag.name)>") : tag.sanitizedOpening()
                } else if droppedWithContent.contains(tag.name) {
                    if !tag.isClosing && !tag.isSelfClosing { scanner = skipped(scanner, through: tag.name) }
                } else {
                    output += escaped(tag.text)
                }
            } else {
                let next = scanner.dropFirst().firstIndex(of: "<") ?? scanner.endIndex
                output += escaped(scanner[..<next])
                scanner = scanner[next...]
            }
        }
        return output.hasPrefix("<") && output.hasSuffix(">") ? output : "<span>" + output + "</span>"
    }

    /// `rest` after the end tag of `name` (any case), or nothing when it has none.
    private static func skipped(_ rest: Substring, through name: String) -> Substring {
        var rest = rest
        while let open = rest.firstIndex(of: "<") {
            let after = rest[rest.index(after: open)...]
            if after.hasPrefix("/"), after.dropFirst().lowercased().hasPrefix(name) {
                guard let close = after.firstIndex(of: ">") else { return "" }
                return after[after.index(after: close)...]
            }
            rest = after
        }
        return ""
    }

    /// Whether `text` holds anything a browser would read as markup: `<` before a letter, `/`, `!`
    /// or `?`.
    public static func containsMarkup(_ text: String) -> Bool {
        var previous: Character?
        for character in text {
            if previous == "<", character.isLetter || character == "/" || character == "!" || character == "?" { return true }
            previous = character
        }
        return false
    }

    /// Text with `&` (unless it starts an entity), `<`, `>` and `"` escaped.
    static func escaped(_ text: some StringProtocol) -> String {
        var result = ""
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            switch character {
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "&": result += isEntity(text[index...]) ? "&" : "&amp;"
            default: result.append(character)
            }
            index = text.index(after: index)
        }
        return result
    }

    /// Whether `text` starts with a character reference: `&name;`, `&#123;` or `&#x1F;`.
    private static func isEntity(_ text: some StringProtocol) -> Bool {
        let body = text.dropFirst().prefix(34)
        guard let semicolon = body.firstIndex(of: ";") else { return false }
        let name = body[..<semicolon]
        if name.hasPrefix("#x") || name.hasPrefix("#X") {
            return name.count > 2 && name.dropFirst(2).allSatisfy(\.isHexDigit)
        }
        if name.hasPrefix("#") { return name.count > 1 && name.dropFirst().allSatisfy { $0.isASCII && $0.isNumber } }
        return !name.isEmpty && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
    }

    /// One start or end tag: `<name attribute="value" …>`, `</name>`, `<name/>`.
    struct Tag {
        var name: String
        var isClosing: Bool
        var isSelfClosing: Bool
        var attributes: [(name: String, value: String)]
        /// The tag as written.
        var text: Substring
        /// Where the text after the tag starts.
        var end: Substring.Index

        /// The tag at the start of `text`; nil when `<` does not start one (it is then text).
        init?(parsing text: Substring) {
            var rest = text.dropFirst()
            isClosing = rest.hasPrefix("/")
            if isClosing { rest = rest.dropFirst() }
            let name = rest.prefix { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
            guard let first = name.first, first.isLetter else { return nil }
            self.name = name.lowercased()
            rest = rest.dropFirst(name.count)
            attributes = []
            isSelfClosing = false
            while true {
                rest = rest.drop { $0.isWhitespace }
                guard let character = rest.first else { return nil }  // no `>`: text
                if character == ">" {
                    rest = rest.dropFirst()
                    break
                }
                if rest.hasPrefix("/>") {
                    isSelfClosing = true
                    rest = rest.dropFirst(2)
                    break
                }
                let attributeName = rest.prefix { !$0.isWhitespace && $0 != "=" && $0 != ">" && $0 != "/" }
                guard !attributeName.isEmpty else {
                    rest = rest.dropFirst()
                    continue
                }
                rest = rest.dropFirst(attributeName.count).drop { $0.isWhitespace }
                var value = ""
                if rest.hasPrefix("=") {
                    rest = rest.dropFirst().drop { $0.isWhitespace }
                    if let quote = rest.first, quote == "\"" || quote == "'" {
                        let inside = rest.dropFirst()
                        guard let close = inside.firstIndex(of: quote) else { return nil }
                        value = String(inside[..<close])
                        rest = inside[inside.index(after: close)...]
                    } else {
                        let bare = rest.prefix { !$0.isWhitespace && $0 != ">" }
                        value = String(bare)
                        rest = rest.dropFirst(bare.count)
                    }
                }
                attributes.append((attributeName.lowercased(), value))
            }
            self.text = text[..<rest.startIndex]
            end = rest.startIndex
        }

        /// The start tag with only the attributes §4.4 keeps, their values escaped.
        func sanitizedOpening() -> String {
            var kept = ""
            for (attribute, written) in attributes {
                // Leading space is what browsers ignore too; the scheme is checked after it.
                let value = String(written.drop { $0.isWhitespace })
                let trimmed = value.lowercased()
                let allowed =
                    switch (name, attribute) {
                    case ("a", "href"): ["http:", "https:", "mailto:"].contains { trimmed.hasPrefix($0) }
                    case ("img", "src"): ["http:", "https:"].contains { trimmed.hasPrefix($0) }
                    case ("img", "alt"): true
                    default: false
                    }
                if allowed { kept += " \(attribute)=\"\(PresentationHTML.escaped(value))\"" }
            }
            return "<\(name)\(kept)>"
        }
    }
}
