import FoundationEssentials
import FuzzSupport
import TesseraIIIF

// What `tessera serve` makes of a curator's sidecar (`scan.tif.iiif.json`): the bytes are read as
// a sidecar and, when accepted, merged into a description and written as a manifest; the text is
// also sanitised as HTML on its own. Held to what viewers rely on: sanitised HTML still reads as
// HTML (starts with `<`, ends with `>`), carries no script, event handler or `javascript:` link,
// and sanitising it again changes nothing.

func checkHTML(_ text: String) {
    let once = PresentationHTML.sanitized(text)
    guard text.hasPrefix("<"), text.hasSuffix(">") else {
        precondition(once == text, "plain text was changed")
        return
    }
    precondition(once.hasPrefix("<") && once.hasSuffix(">"), "sanitised HTML no longer reads as HTML: \(once)")
    precondition(!once.lowercased().contains("<script") && !once.lowercased().contains("javascript:"), "script survived: \(once)")
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
