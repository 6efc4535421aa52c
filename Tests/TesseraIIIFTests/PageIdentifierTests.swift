import Foundation
import TesseraCore
import Testing

@testable import TesseraIIIF

/// `{identifier};{n}`: page `n` (from 1) of a document, as Cantaloupe's meta-identifiers write it.
@Suite("Page identifiers")
struct PageIdentifierTests {
    @Test(
        "a page suffix is `;` or `%3B` and a page number from 1, without leading zeros",
        arguments: [
            ("doc.pdf;2", "doc.pdf", 2), ("scans%2Fbook.tif%3B12", "scans%2Fbook.tif", 12), ("a%3b3", "a", 3),
            ("a;b;7", "a;b", 7), ("x;999999", "x", 999_999),
        ])
    func pageSuffix(identifier: String, file: String, page: Int) {
        let parsed = IdentifierResolver.suffix(of: identifier)
        #expect(parsed?.identifier == file && parsed?.suffix == .page(page))
    }

    @Test(
        "an associated image's suffix is 1 to 32 lowercase letters",
        arguments: [
            ("slide.svs;label", "slide.svs", "label"), ("a%2Fb.dcm%3Bmacro", "a%2Fb.dcm", "macro"), ("x;7;thumbnail", "x;7", "thumbnail"),
            ("x;" + String(repeating: "z", count: 32), "x", String(repeating: "z", count: 32)),
        ])
    func associatedImageSuffix(identifier: String, file: String, name: String) {
        let parsed = IdentifierResolver.suffix(of: identifier)
        #expect(parsed?.identifier == file && parsed?.suffix == .associatedImage(name))
    }

    @Test(
        "anything else is no suffix",
        arguments: [
            "doc.pdf", "doc.pdf;", "doc.pdf;0", "doc.pdf;01", ";3", "%3B3", ";label", "a;1000000", "a;-1", "a;２", "a;Label", "a;la-bel", "a;3b",
            "x;" + String(repeating: "z", count: 33),
        ])
    func noSuffix(identifier: String) {
        #expect(IdentifierResolver.suffix(of: identifier) == nil)
    }

    @Test("a page is the file's with a key of its own; a file named with the suffix is itself")
    func resolve() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pages-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("sub"), withIntermediateDirectories: true)
        for name in ["sub/doc.pdf", "odd.png;2", "odd.png"] {
            try Data("x".utf8).write(to: root.appendingPathComponent(name))
        }
        let resolver = try IdentifierResolver(root: root.path)
        let whole = try resolver.resolve("sub%2Fdoc.pdf")
        let second = try resolver.resolve("sub%2Fdoc.pdf;2")
        #expect(second.relativePath == "sub/doc.pdf" && second.page == 2 && second.pageIndex == 1)
        #expect(second.path == whole.path && second.identity == whole.identity)
        #expect(second.key != whole.key && second.encodedIdentifier == "sub%2Fdoc.pdf;2")
        // Page 1 named is the image itself: the same key, so the same cached work.
        let first = try resolver.resolve("sub%2Fdoc.pdf%3B1")
        #expect(first.key == whole.key && first.pageIndex == 0 && first.encodedIdentifier == "sub%2Fdoc.pdf;1")
        #expect(whole.page == nil && whole.encodedIdentifier == "sub%2Fdoc.pdf")
        // A file whose name ends like a page is that file, not a page of another.
        let odd = try resolver.resolve("odd.png;2")
        #expect(odd.relativePath == "odd.png;2" && odd.page == nil)
        // No page of a file that is not there; the rules of identifiers still apply to the file part.
        #expect(throws: IdentifierError.self) { try resolver.resolve("missing.pdf;2") }
        #expect(throws: IdentifierError(identifier: "..%2Fx;2", reason: .invalid("contains a relative path component"))) {
            try resolver.resolve("..%2Fx;2")
        }
    }
}
