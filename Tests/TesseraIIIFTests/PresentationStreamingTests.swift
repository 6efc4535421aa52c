import FoundationEssentials
import TesseraCore
import Testing

@testable import TesseraIIIF

@Suite("Presentation documents written a piece at a time")
struct PresentationStreamingTests {
    static func canvas(_ index: Int) -> IIIFCanvas {
        let service = "https://example.org/iiif/3/page-\(index).jpg"
        return IIIFCanvas(
            id: "https://example.org/m/canvas/\(index)",
            content: ContentResource(
                id: service + "/full/max/0/default.jpg", type: "Image", format: "image/jpeg", width: 100 + index, height: 200,
                service: [ImageServiceReference(id: service)]),
            label: LanguageMap(["page \(index) \"quoted\" with \"items\":[] inside"]))
    }

    /// `document`'s head, its items in batches of `batch`, and its tail, joined as the server
    /// writes them.
    static func pieces<Item>(_ document: IIIFDocument<Item>, batch: Int) throws -> Data {
        let (head, tail) = try document.envelope()
        var bytes = head
        for start in stride(from: 0, to: document.items.count, by: batch) {
            if start > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(try IIIFDocument<Item>.json(of: Array(document.items[start..<min(start + batch, document.items.count)])))
        }
        bytes.append(tail)
        return bytes
    }

    @Test("head, items in batches and tail are the bytes of the whole document, with any number of items")
    func piecesAreTheWholeDocument() throws {
        var description = ResourceDescription(label: LanguageMap(["A \"items\":[] label"]))
        description.summary = LanguageMap(["<p>items</p>"])
        description.behavior = ["paged"]
        description.partOf = [ResourceReference(id: "https://example.org/c", type: "Collection", label: LanguageMap(["c"]))]
        for count in [0, 1, 2, 7, 1001] {
            let manifest = IIIFManifest(id: "https://example.org/m", description: description, items: (0..<count).map(Self.canvas))
            for batch in [1, 3, 1000] {
                #expect(try Self.pieces(manifest, batch: batch) == manifest.json(), "\(count) canvases in batches of \(batch)")
            }
        }
        let collection = IIIFCollection(
            id: "https://example.org/c", description: description,
            items: (0..<5).map { ResourceReference(id: "https://example.org/m\($0)", type: "Manifest", label: LanguageMap(["m\($0)"])) })
        #expect(try Self.pieces(collection, batch: 2) == collection.json())
    }

    @Test("the envelope leaves the document's own items out")
    func envelopeHasNoItems() throws {
        let manifest = IIIFManifest(
            id: "https://example.org/m", description: ResourceDescription(label: LanguageMap(["m"])), items: [Self.canvas(1)])
        let (head, tail) = try manifest.envelope()
        let text = String(decoding: head + tail, as: UTF8.self)
        #expect(text.contains(#""items":[]"#))
        #expect(!text.contains("canvas/1"))
        #expect(String(decoding: head, as: UTF8.self).hasSuffix(#""items":["#))
        #expect(String(decoding: tail, as: UTF8.self).hasPrefix("]"))
    }
}
