import FoundationEssentials
import FuzzSupport
import TesseraIIIF

// What `tessera serve` makes of a curator's sidecar (`scan.tif.iiif.json`): the bytes are read as
// a sidecar and, when accepted, merged into a description and written as a manifest; the text is
// also sanitised as HTML on its own. Held to what viewers rely on: sanitised HTML still reads as
// HTML (starts with `<`, ends with `>`), carries no script, event handler or `javascript:` link,
// and sanitising it again changes nothing.

/// Whether every tag in sanitised `html` is one §4.4 allows, with only `href` (on `a`: `http:`,
/// `https:`, `mailto:`), `src` (on `img`: `http:`, `https:`) and `alt`: every `<` in the output
/// starts such a tag (text's are escaped), and values hold no raw quote or `>`. Checked here
/// independently of the sanitiser's own parser.
func onlyAllowedMarkup(_ html: String) -> Bool {
    let allowed: Set<Substring> = ["a", "b", "br", "i", "img", "p", "small", "span", "sub", "sup"]
    var rest = Substring(html)
    while let open = rest.firstIndex(of: "<") {
        guard let close = rest[open...].firstIndex(of: ">") else { return false }
        var tag = rest[rest.index(after: open)..<close]
        rest = rest[rest.index(after: close)...]
        if tag.hasPrefix("/") {
            guard allowed.contains(tag.dropFirst()) else { return false }
            continue
        }
        let name = tag.prefix { $0 != " " }
        guard allowed.contains(name) else { return false }
        tag = tag.dropFirst(name.count)
        // ` attribute="value"` pairs, nothing else.
        while !tag.isEmpty {
            guard tag.hasPrefix(" "), let equals = tag.firstIndex(of: "=") else { return false }
            let attribute = tag[tag.index(after: tag.startIndex)..<equals]
            let afterEquals = tag[tag.index(after: equals)...]
            guard afterEquals.hasPrefix("\""), let end = afterEquals.dropFirst().firstIndex(of: "\"") else { return false }
            let value = afterEquals[afterEquals.index(after: afterEquals.startIndex)..<end].lowercased()
            switch (name, attribute) {
            case ("a", "href"): guard ["http:", "https:", "mailto:"].contains(where: { value.hasPrefix($0) }) else { return false }
            case ("img", "src"): guard ["http:", "https:"].contains(where: { value.hasPrefix($0) }) else { return false }
            case ("img", "alt"): break
            default: return false
            }
            tag = afterEquals[afterEquals.index(after: end)...]
        }
    }
    return true
}

func checkHTML(_ text: String) {
    let once = PresentationHTML.sanitized(text)
    guard text.hasPrefix("<"), text.hasSuffix(">") else {
        precondition(once == text, "plain text was changed")
        return
    }
    precondition(once.hasPrefix("<") && once.hasSuffix(">"), "sanitised HTML no longer reads as HTML: \(once)")
    precondition(onlyAllowedMarkup(once), "markup §4.4 does not allow survived: \(once)")
    precondition(PresentationHTML.sanitized(once) == once, "sanitising twice changed it: \(once)")
}

fuzzMain { data in
    checkHTML(String(decoding: data, as: UTF8.self))
    guard let sidecar = try? PresentationSidecar(json: data) else { return .rejected }
    var description = ResourceDescription(label: "file.tif")
    sidecar.apply(to: &description)
    for value in [description.summary].compactMap({ $0 }) + description.metadata.map(\.value)
        + [description.requiredStatement?.value].compactMap({ $0 })
    {
        for (_, texts) in value.entries { texts.forEach(checkHTML) }
    }
    let manifest = IIIFManifest(id: "http://127.0.0.1/m", description: description, items: [])
    precondition((try? manifest.json()) != nil, "an accepted sidecar made a manifest that cannot be written")
    return .tried
}
