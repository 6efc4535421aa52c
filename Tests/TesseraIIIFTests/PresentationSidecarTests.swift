import Foundation
import TesseraCore
import Testing

@testable import TesseraIIIF

/// Curators' sidecars (`scan.tif.iiif.json`, `_folder.iiif.json`): read strictly, HTML sanitised.
@Suite("Presentation sidecars and HTML")
struct PresentationSidecarTests {
    func sidecar(_ json: String) throws -> PresentationSidecar { try PresentationSidecar(json: Data(json.utf8)) }

    @Test("a sidecar's members replace the generated ones; its metadata comes first")
    func merge() throws {
        let read = try sidecar(
            """
            {"label": {"en": ["Letter to Ada"], "de": "Brief an Ada"}, "summary": "<p>Two <b>pages</b>.</p>",
             "metadata": [{"label": "Author", "value": {"en": ["Charles"]}}],
             "requiredStatement": {"label": {"en": ["Attribution"]}, "value": "Tessera test data"},
             "rights": "https://creativecommons.org/licenses/by/4.0/", "navDate": "1843-07-01T00:00:00Z",
             "viewingDirection": "right-to-left", "behavior": ["individuals"]}
            """)
        var description = ResourceDescription(label: "letter.pdf")
        description.metadata = [LabelValue(label: .text("Size", language: "en"), value: "612 × 792 pixels")]
        description.behavior = ["paged"]
        read.apply(to: &description)
        #expect(description.label.entries.map(\.language) == ["de", "en"] && description.label["en"] == ["Letter to Ada"])
        #expect(description.summary?["none"] == ["<p>Two <b>pages</b>.</p>"])
        #expect(description.metadata.map { $0.label["none"] ?? $0.label["en"] ?? [] } == [["Author"], ["Size"]])
        #expect(description.rights == "http://creativecommons.org/licenses/by/4.0/")
        #expect(description.navDate == "1843-07-01T00:00:00Z" && description.viewingDirection == "right-to-left")
        #expect(description.behavior == ["individuals"])
    }

    @Test(
        "a sidecar that is wrong anywhere is refused, saying what is wrong",
        arguments: [
            ("[]", "not a JSON object"), ("{", "not JSON"), (#"{"lable": "x"}"#, "unknown member \"lable\""),
            (#"{"label": 3}"#, "neither text nor a language map"), (#"{"label": {}}"#, "no language"),
            (#"{"label": {"english!": ["x"]}}"#, "no BCP 47 tag"), (#"{"metadata": {"label": "a", "value": "b"}}"#, "not a list"),
            (#"{"metadata": [{"label": "a"}]}"#, "metadata[0] is not"), (#"{"rights": "http://example.org/mine"}"#, "rights is not"),
            (#"{"navDate": "1843-07-01"}"#, "navDate"), (#"{"navDate": "1843-07-01T00:00:00"}"#, "navDate"),
            (#"{"viewingDirection": "sideways"}"#, "viewingDirection"), (#"{"behavior": "paged"}"#, "behavior is not a list"),
            (#"{"behavior": ["flip"]}"#, "does not define"), (#"{"summary": {"en": [1]}}"#, "not text"),
        ])
    func refused(json: String, reason: String) {
        let error = #expect(throws: PresentationSidecarError.self) { try sidecar(json) }
        #expect(error?.description.contains(reason) == true, "\(String(describing: error))")
    }

    @Test(
        "only the HTML §4.4 allows passes; the rest is dropped or escaped",
        arguments: [
            ("plain <b>text</b> is not HTML", "plain <b>text</b> is not HTML"),
            (
                "<p>ok <i>fine</i><br/>and <a href=\"https://example.org/a?b=1&amp;c=2\">a link</a></p>",
                "<p>ok <i>fine</i><br>and <a href=\"https://example.org/a?b=1&amp;c=2\">a link</a></p>"
            ),
            ("<p>x<script>alert(1)</script>y</p>", "<p>xy</p>"),
            ("<p>x<SCRIPT src=//evil>alert(1)</ScRiPt>y</p>", "<p>xy</p>"),
            ("<img src=\"x\" onerror=\"alert(1)\">", "<img>"),
            (
                "<img src=\"https://example.org/i.png\" alt='a \"quoted\" alt' onload=alert(1)>",
                "<img src=\"https://example.org/i.png\" alt=\"a &quot;quoted&quot; alt\">"
            ),
            ("<a href=\"javascript:alert(1)\">x</a>", "<a>x</a>"), ("<a href=\" JaVaScRiPt:alert(1)\">x</a>", "<a>x</a>"),
            ("<a href=\"mailto:ada@example.org\" target=_blank>x</a>", "<a href=\"mailto:ada@example.org\">x</a>"),
            ("<div onclick=\"alert(1)\">x</div>", "<span>&lt;div onclick=&quot;alert(1)&quot;&gt;x&lt;/div&gt;</span>"),
            ("<p><!-- a comment --><![CDATA[<script>]]>x<?php echo 1 ?></p>", "<p>x</p>"),
            ("<style>p{}</style><p>x</p>", "<p>x</p>"),
            ("<p>1 < 2 & 3 > 2 &amp; &#60; &#x3c;</p>", "<p>1 &lt; 2 &amp; 3 &gt; 2 &amp; &#60; &#x3c;</p>"),
            ("<svg><script>alert(1)</script></svg><p>x</p>", "<p>x</p>"), ("<p>unclosed <b </p>", "<p>unclosed <b>"),
            ("<iframe src=x>", "<span></span>"),
        ])
    func sanitized(input: String, output: String) {
        #expect(PresentationHTML.sanitized(input) == output)
    }

    @Test("every value that may be HTML is sanitised in a sidecar; labels are text, markup in them refused")
    func sidecarHTML() throws {
        let read = try sidecar(
            #"{"label": "1 < 2", "summary": "<p onmouseover=alert(1)>s</p>", "metadata": [{"label": "a", "value": "<script>x</script><i>v</i>"}]}"#
        )
        #expect(read.label?["none"] == ["1 < 2"])
        for json in [
            #"{"label": "<b>x</b>"}"#, #"{"label": {"en": ["<script>alert(1)</script>"]}}"#,
            #"{"metadata": [{"label": "<img src=x>", "value": "v"}]}"#,
        ] {
            #expect(throws: PresentationSidecarError.self) { try sidecar(json) }
        }
        #expect(read.summary?["none"] == ["<p>s</p>"])
        #expect(read.metadata.first?.value["none"] == ["<i>v</i>"])
    }
}
