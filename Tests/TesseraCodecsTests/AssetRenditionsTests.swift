import Foundation
import TesseraCore
import Testing

@testable import TesseraCodecs

@Suite("Renditions: asset catalog image sets")
struct AssetRenditionsTests {
    static func properties(_ name: String) throws -> ImageProperties {
        try ImageDecoder().probe(.file(Fixtures.path(name)))
    }

    static func plan(
        _ name: String, points: PointSize, scales: [DisplayScale] = AssetRenditionPlan.catalogScales,
        framing: AssetRenditionPlan.Framing = .fit, allowsUpscaling: Bool = false
    ) throws -> AssetRenditionPlan {
        try AssetRenditionPlan(
            name: "Art", pointSize: points, scales: scales, source: try properties(name), framing: framing,
            allowsUpscaling: allowsUpscaling)
    }

    func alpha(_ pixels: PixelBuffer, _ x: Int, _ y: Int) -> UInt8 {
        pixels.format.hasAlpha ? pixels.pixel(x: x, y: y).last! : 255
    }

    @Test("each scale is points × scale pixels, named NAME.png, NAME@2x.png, NAME@3x.png; a vector source is never refused")
    func vectorPlan() throws {
        // svg-size.svg is 120×80: the 3x rendition (180×120) is larger, and drawn at that size.
        let plan = try Self.plan("svg-size.svg", points: PointSize(width: 60, height: 40))
        #expect(plan.sourceIsVector)
        #expect(
            plan.renditions.map(\.pixelSize) == [
                PixelSize(width: 60, height: 40), PixelSize(width: 120, height: 80), PixelSize(width: 180, height: 120),
            ])
        #expect(plan.renditions.map(\.filename) == ["Art.png", "Art@2x.png", "Art@3x.png"])
        #expect(plan.renditions.map(\.scaleName) == ["1x", "2x", "3x"])
        #expect(plan.renditions.allSatisfy { !$0.isUpscaled })
    }

    @Test("scales come out smallest first whatever the order asked; fractional points round up")
    func fractionalPoints() throws {
        let plan = try Self.plan("svg-size.svg", points: PointSize(width: 20.5, height: 10), scales: [.x3, .x1])
        #expect(plan.renditions.map(\.scale) == [.x1, .x3])
        #expect(plan.renditions.map(\.pixelSize) == [PixelSize(width: 21, height: 10), PixelSize(width: 62, height: 30)])
    }

    @Test("a bitmap too small for 3x is refused, naming both sizes; allowed, only 3x is enlarged")
    func bitmapUpscaling() throws {
        // 400×300 source; 200×150 points: 1x 200×150, 2x 400×300 (exactly the source), 3x 600×450.
        let points = PointSize(width: 200, height: 150)
        #expect(
            throws: AssetRenditionError.wouldUpscale(
                scale: .x3, source: PixelSize(width: 400, height: 300), rendition: PixelSize(width: 600, height: 450), factor: 1.5
            )
        ) {
            try Self.plan("photo-400x300.png", points: points)
        }
        do {
            _ = try Self.plan("photo-400x300.png", points: points)
            Issue.record("a 400×300 bitmap was accepted for 600×450")
        } catch let error as AssetRenditionError {
            #expect(error.category == .badInput)
            #expect(error.description.contains("400×300") && error.description.contains("600×450"), "\(error)")
            #expect(error.description.contains("@3x") && error.description.contains("1.5×"), "\(error)")
        }
        let allowed = try Self.plan("photo-400x300.png", points: points, allowsUpscaling: true)
        #expect(allowed.renditions.map(\.isUpscaled) == [false, false, true])
        #expect(try Self.plan("photo-400x300.png", points: points, scales: [.x1, .x2]).renditions.count == 2)
    }

    @Test("crop framing refuses what fit accepts: covering the box enlarges the short side")
    func cropUpscaling() throws {
        // 400×300 into 300×360: fit scales by min(0.75, 1.2) = 0.75, crop by max(0.75, 1.2) = 1.2.
        let points = PointSize(width: 300, height: 360)
        let fit = try Self.plan("photo-400x300.png", points: points, scales: [.x1])
        #expect(fit.renditions[0].contentSize == PixelSize(width: 300, height: 225))
        #expect(throws: AssetRenditionError.self) {
            try Self.plan("photo-400x300.png", points: points, scales: [.x1], framing: .centerCrop)
        }
    }

    @Test("names, sizes and scales out of range are bad input; oversized renditions are too large")
    func invalid() throws {
        let properties = try Self.properties("svg-size.svg")
        let points = PointSize(width: 10, height: 10)
        func category(
            name: String = "Art", points: PointSize = points, scales: [DisplayScale] = AssetRenditionPlan.catalogScales
        ) -> ErrorCategory? {
            do {
                _ = try AssetRenditionPlan(name: name, pointSize: points, scales: scales, source: properties)
                return nil
            } catch { return error.category }
        }
        #expect(category(scales: [4]) == .badInput)
        #expect(category(scales: [1.5]) == .badInput)
        #expect(category(scales: [2, 2]) == .badInput)
        #expect(category(scales: []) == .badInput)
        for name in ["", ".hidden", "a/b", "a\nb"] { #expect(category(name: name) == .badInput, "\(name)") }
        #expect(category(points: PointSize(width: 0, height: 10)) == .badInput)
        #expect(category(points: PointSize(width: .infinity, height: 10)) == .badInput)
        #expect(category(points: PointSize(width: 20_000, height: 20_000)) == .tooLarge)
        // Sides past any bitmap must not trap converting to Int.
        #expect(category(points: PointSize(width: 1e300, height: 1)) == .tooLarge)
        #expect(category() == nil)
    }

    @Test("Contents.json is Xcode's: universal idiom, 1x/2x/3x slots, files named, author xcode, version 1")
    func contents() throws {
        let plan = try Self.plan("svg-size.svg", points: PointSize(width: 60, height: 40), scales: [.x2, .x3])
        let json = try JSONSerialization.jsonObject(with: plan.contents.encoded()) as! [String: Any]
        #expect(Set(json.keys) == ["images", "info"])
        let images = json["images"] as! [[String: String]]
        #expect(images.map { $0["scale"] } == ["1x", "2x", "3x"])
        #expect(images.allSatisfy { $0["idiom"] == "universal" })
        #expect(images.map { $0["filename"] } == [nil, "Art@2x.png", "Art@3x.png"])
        #expect(images[0].keys.sorted() == ["idiom", "scale"])
        let info = json["info"] as! [String: Any]
        #expect(info["author"] as? String == "xcode" && info["version"] as? Int == 1)
        let text = String(decoding: plan.contents.encoded(), as: UTF8.self)
        #expect(text.hasSuffix("}\n") && text.contains("\"filename\" : \"Art@2x.png\""), "\(text)")
        #expect(try JSONDecoder().decode(AssetCatalogContents.self, from: plan.contents.encoded()) == plan.contents)
    }

    @Test("a vector image set: one universal image without a scale, and preserves-vector-representation")
    func vectorContents() throws {
        let json = try JSONSerialization.jsonObject(with: AssetCatalogContents.vector(filename: "Art.pdf").encoded()) as! [String: Any]
        #expect(json["images"] as? [[String: String]] == [["filename": "Art.pdf", "idiom": "universal"]])
        #expect((json["properties"] as? [String: Any])?["preserves-vector-representation"] as? Bool == true)
    }

    @Test("SVG renders at exactly each rendition's size, colours where the drawing puts them")
    func renderVector() async throws {
        // 120×80: red left half, blue right half.
        let plan = try Self.plan("svg-size.svg", points: PointSize(width: 60, height: 40))
        for rendition in plan.renditions {
            let image = try await plan.render(rendition, from: .file(Fixtures.path("svg-size.svg")))
            let pixels = image.pixels
            #expect(pixels.size == rendition.pixelSize)
            let left = Array(pixels.pixel(x: pixels.width / 4, y: pixels.height / 2))
            let right = Array(pixels.pixel(x: pixels.width * 3 / 4, y: pixels.height / 2))
            #expect(left[0] > 240 && left[2] < 15 && right[0] < 15 && right[2] > 240, "\(left) \(right)")
            #expect(alpha(pixels, 0, 0) == 255 && alpha(pixels, pixels.width - 1, pixels.height - 1) == 255)
        }
    }

    @Test(
        "another aspect ratio is fitted on a transparent canvas of the exact size, centred",
        arguments: [("svg-size.svg", true), ("photo-400x300.png", false)])
    func fitPadding(source: String, isVector: Bool) throws {
        // Both sources are 3:2 or 4:3 landscape; a square rendition leaves bands above and below.
        let plan = try Self.plan(source, points: PointSize(width: 50, height: 50), scales: [.x1, .x2])
        #expect(plan.sourceIsVector == isVector)
        for rendition in plan.renditions {
            let pixels = try plan.render(rendition, from: .file(Fixtures.path(source))).pixels
            #expect(pixels.size == rendition.pixelSize)
            #expect(pixels.format.hasAlpha)
            let (width, height) = (pixels.width, pixels.height)
            for (x, y) in [(0, 0), (width - 1, 0), (0, height - 1), (width - 1, height - 1), (width / 2, 0), (width / 2, height - 1)] {
                #expect(alpha(pixels, x, y) == 0, "(\(x), \(y)) of \(rendition.pixelSize)")
            }
            // The content spans the full width, centred vertically. (librsvg draws the SVG at a
            // whole-pixel size a fraction off its aspect ratio, so its edge columns may be partly
            // covered, and cairo leaves a seam between its two rectangles at the centre.)
            for (x, y) in [(width / 4, height / 2), (width * 3 / 4, height / 2)] {
                #expect(alpha(pixels, x, y) == 255, "(\(x), \(y)) of \(rendition.pixelSize)")
            }
            for (x, y) in [(0, height / 2), (width - 1, height / 2)] {
                #expect(alpha(pixels, x, y) > 128, "(\(x), \(y)) of \(rendition.pixelSize)")
            }
            let content = rendition.contentSize
            #expect(content.width == width && content.height < height)
            // librsvg may cover the content's edge rows only partly (a fraction of a pixel of rounding).
            let (top, bottom) = ((height - content.height) / 2, (height - content.height) / 2 + content.height - 1)
            #expect(alpha(pixels, width / 2, top) > 128 && alpha(pixels, width / 2, top - 1) == 0)
            #expect(alpha(pixels, width / 2, bottom) > 128 && alpha(pixels, width / 2, bottom + 1) == 0)
        }
    }

    @Test("crop framing fills the rendition: opaque to the corners, the overflow cut evenly")
    func cropFills() throws {
        let plan = try Self.plan("svg-size.svg", points: PointSize(width: 40, height: 40), scales: [.x2], framing: .centerCrop)
        let pixels = try plan.render(plan.renditions[0], from: .file(Fixtures.path("svg-size.svg"))).pixels
        #expect(pixels.size == PixelSize(width: 80, height: 80))
        for (x, y) in [(0, 0), (79, 0), (0, 79), (79, 79)] { #expect(alpha(pixels, x, y) == 255) }
        // 120×80 scaled to 120×80 (factor 1) and cut to the middle 80: red left of centre, blue right.
        #expect(Array(pixels.pixel(x: 2, y: 40))[0] > 240 && Array(pixels.pixel(x: 77, y: 40))[2] > 240)
    }

    @Test("with upscaling allowed a small bitmap is enlarged to the exact size; a rendition of its own size is the image itself")
    func renderUpscaled() throws {
        let source = "png-rgb-8.png"  // 64×48
        let plan = try Self.plan(source, points: PointSize(width: 64, height: 48), allowsUpscaling: true)
        #expect(plan.renditions.map(\.isUpscaled) == [false, true, true])
        let original = try ImageDecoder().decode(.file(Fixtures.path(source))).pixels
        for rendition in plan.renditions {
            let pixels = try plan.render(rendition, from: .file(Fixtures.path(source))).pixels
            #expect(pixels.size == rendition.pixelSize)
            if rendition.scale == .x1 { #expect(pixels == original) }
        }
    }
}
