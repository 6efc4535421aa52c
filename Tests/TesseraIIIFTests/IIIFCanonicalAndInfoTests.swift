import FoundationEssentials
import TesseraCore
import TesseraTestSupport
import Testing

@testable import TesseraIIIF

extension IIIFRequestTests {
    // MARK: - Canonical form

    /// §4.8's canonical form; the left column is what a client sent.
    @Test(
        "canonical paths",
        arguments: [
            // The validator's image, no limits.
            ("full/max/0/default.jpg", IIIFLimits.none, "full/max/0/default.jpg"),
            ("0,0,1000,1000/1000,/0/default.jpg", .none, "full/max/0/default.jpg"),
            ("square/max/0/default.jpg", .none, "full/max/0/default.jpg"),
            ("pct:0,0,100,100/pct:100/360/color.png", .none, "full/max/360/color.png"),
            ("0,0,5000,5000/max/0/default.jpg", .none, "full/max/0/default.jpg"),
            ("300,400,100,100/57,57/0/default.jpg", .none, "300,400,100,100/57,57/0/default.jpg"),
            ("300,400,100,100/max/0/default.jpg", .none, "300,400,100,100/max/0/default.jpg"),
            ("300,400,100,100/100,100/0/default.jpg", .none, "300,400,100,100/max/0/default.jpg"),
            ("pct:31,51,9,9/max/0/default.jpg", .none, "310,510,90,90/max/0/default.jpg"),
            ("900,900,500,500/max/0/default.jpg", .none, "900,900,100,100/max/0/default.jpg"),
            ("full/!512,700/0/default.jpg", .none, "full/512,512/0/default.jpg"),
            ("full/617,/0/default.jpg", .none, "full/617,617/0/default.jpg"),
            ("full/,600/!180/gray.jpg", .none, "full/600,600/!180/gray.jpg"),
            ("full/pct:45/90.0/bitonal.png", .none, "full/450,450/90/bitonal.png"),
            ("full/max/22.50/default.png", .none, "full/max/22.5/default.png"),
            ("full/max/!0/default.jpg", .none, "full/max/!0/default.jpg"),
            ("full/max/0/color.jpg", .none, "full/max/0/color.jpg"),
            ("full/max/0/default.webp", .none, "full/max/0/default.webp"),
            ("full/%5Emax/0/default.jpg", .none, "full/max/0/default.jpg"),
            ("full/^500,/0/default.jpg", .none, "full/500,500/0/default.jpg"),
            ("full/640,480/0/default.jpg", .none, "full/640,480/0/default.jpg"),
            // Upscaling and limits.
            ("full/^1500,/0/default.jpg", IIIFLimits(maxWidth: 2000), "full/^1500,1500/0/default.jpg"),
            ("full/^max/0/default.jpg", IIIFLimits(maxWidth: 2000), "full/max/0/default.jpg"),
            ("full/^2000,2000/0/default.jpg", IIIFLimits(maxWidth: 2000), "full/^2000,2000/0/default.jpg"),
            ("full/^1000,1500/0/default.jpg", IIIFLimits(maxWidth: 2000), "full/^1000,1500/0/default.jpg"),
            ("full/max/0/default.jpg", IIIFLimits(maxArea: 250_000), "full/max/0/default.jpg"),
            ("full/500,500/0/default.jpg", IIIFLimits(maxArea: 250_000), "full/max/0/default.jpg"),
            ("full/^max/0/default.jpg", IIIFLimits(maxArea: 250_000), "full/max/0/default.jpg"),
            ("full/400,/0/default.jpg", IIIFLimits(maxArea: 250_000), "full/400,400/0/default.jpg"),
            ("full/!1000,2000/0/default.jpg", IIIFLimits(maxWidth: 800), "full/max/0/default.jpg"),
        ])
    func canonical(path: String, limits: IIIFLimits, expected: String) throws {
        #expect(try Self.resolve(path, image: Self.validator, limits: limits).canonicalPath == expected)
    }

    @Test("the canonical path of a canonical path is itself")
    func canonicalIsStable() throws {
        let limits = IIIFLimits(maxWidth: 1200, maxArea: 900_000)
        for path in [
            "pct:12.3,45.6,7.8,9/pct:33.3/!22.5/gray.png", "square/^!1100,700/270/bitonal.webp",
            "17,23,555,444/^pct:150/0.25/color.jpg", "full/max/0/default.jpg", "full/^max/90/default.jpg",
        ] {
            let first = try Self.resolve(path, image: PixelSize(width: 1234, height: 987), limits: limits)
            let again = try Self.resolve(first.canonicalPath, image: PixelSize(width: 1234, height: 987), limits: limits)
            #expect(again.canonicalPath == first.canonicalPath, "\(path)")
            #expect(again.region == first.region && again.scaledSize == first.scaledSize, "\(path)")
        }
    }

    // MARK: - Errors

    @Test("error descriptions: one line, the parameter and value, long values cut short")
    func errorDescriptions() throws {
        let zero = try #require(Self.parseError("full", "0,", "0", "default.jpg"))
        #expect(zero.description == "size \"0,\" must be at least 1 pixel")
        let newline = try #require(Self.parseError("full%0Aevil", "max", "0", "default.jpg"))
        #expect(newline.description == "region \"full\\nevil\" must be full, square, x,y,w,h in whole pixels, or pct:x,y,w,h in percent")
        let long = try #require(Self.parseError(String(repeating: "a", count: 5000), "max", "0", "default.jpg"))
        #expect(long.description.count < 300)
        #expect(long.description.contains(String(repeating: "a", count: IIIFRequestError.quotedValueLimit) + "…\""))
        let tooLarge = try #require(Self.resolveError("full/600,/0/default.jpg", image: Self.validator, limits: IIIFLimits(maxWidth: 500)))
        #expect(tooLarge.description == "size \"600,\" makes 600×600 pixels, wider than maxWidth 500")
        let region = try #require(Self.resolveError("2000,0,1,1/max/0/default.jpg", image: Self.validator))
        #expect(region.description == "region \"2000,0,1,1\" lies entirely outside the 1000×1000 image")
    }

    // MARK: - info.json

    /// The top-level keys of a JSON object, in the order the decoder sees them.
    struct TopLevelKeys: Decodable {
        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }
        var keys: Set<String>
        init(from decoder: any Decoder) throws {
            keys = Set(try decoder.container(keyedBy: Key.self).allKeys.map(\.stringValue))
        }
    }

    /// The top-level keys in document order: the lines `json()` indents by exactly two spaces.
    static func keyOrder(_ json: String) -> [String] {
        json.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("  \""), !line.hasPrefix("   "), let end = line.dropFirst(3).firstIndex(of: "\"") else { return nil }
            return String(line[line.index(line.startIndex, offsetBy: 3)..<end])
        }
    }

    @Test("info.json round-trips through JSONDecoder with the keys in order")
    func infoJSONRoundTrip() throws {
        let id = "https://images.example.org/iiif/a%2Fb \"quoted\" \\ back\nslash\t\u{1}\u{2028}é😀"
        let info = IIIFImageInfo(
            id: id, size: PixelSize(width: 6000, height: 4000),
            tiles: [.init(width: 512, height: 512, scaleFactors: [1, 2, 4, 8, 16]), .init(width: 1024, height: 2048, scaleFactors: [32])],
            sizes: [PixelSize(width: 150, height: 100), PixelSize(width: 600, height: 400)],
            limits: IIIFLimits(maxWidth: 3000, maxHeight: 2000, maxArea: 4_000_000))
        let json = info.json()
        let document = try JSONDecoder().decode(IIIFInfoDocument.self, from: Data(json.utf8))
        #expect(document.context == "http://iiif.io/api/image/3/context.json")
        #expect(document.id == id)
        #expect(document.type == "ImageService3")
        #expect(document.protocol == "http://iiif.io/api/image")
        #expect(document.profile == "level2")
        #expect(document.width == 6000 && document.height == 4000)
        #expect(document.maxWidth == 3000 && document.maxHeight == 2000 && document.maxArea == 4_000_000)
        #expect(document.sizes == [.init(width: 150, height: 100), .init(width: 600, height: 400)])
        #expect(
            document.tiles == [
                .init(width: 512, height: 512, scaleFactors: [1, 2, 4, 8, 16]), .init(width: 1024, height: 2048, scaleFactors: [32]),
            ])
        #expect(document.extraFormats == ["webp", "avif", "jxl"])
        #expect(document.extraQualities == ["color", "gray", "bitonal"])
        #expect(document.extraFeatures == ["mirroring", "rotationArbitrary", "sizeUpscaling", "profileLinkHeader", "canonicalLinkHeader"])

        let expectedKeys = [
            "@context", "id", "type", "protocol", "profile", "width", "height", "maxWidth", "maxHeight", "maxArea",
            "sizes", "tiles", "extraFormats", "extraQualities", "extraFeatures",
        ]
        #expect(try JSONDecoder().decode(TopLevelKeys.self, from: Data(json.utf8)).keys == Set(expectedKeys))
        #expect(Self.keyOrder(json) == expectedKeys)
        #expect(json.hasPrefix("{\n  \"@context\": "))
        // Control characters and the JavaScript line separators are escaped, so nothing splits a line.
        #expect(json.contains("\\n") && json.contains("\\t") && json.contains("\\u0001") && json.contains("\\u2028"))
        #expect(!json.contains("\u{2028}"))
    }

    @Test("info.json leaves out what is not set, and sizeUpscaling without maxWidth or maxArea")
    func infoJSONMinimal() throws {
        let info = IIIFImageInfo(id: "https://x/y", size: PixelSize(width: 10, height: 20), extraFormats: [], extraQualities: [])
        let json = info.json()
        let keys = try JSONDecoder().decode(TopLevelKeys.self, from: Data(json.utf8)).keys
        #expect(keys == ["@context", "id", "type", "protocol", "profile", "width", "height", "extraFeatures"])
        let document = try JSONDecoder().decode(IIIFInfoDocument.self, from: Data(json.utf8))
        #expect(document.extraFeatures == ["mirroring", "rotationArbitrary", "profileLinkHeader", "canonicalLinkHeader"])
    }

    @Test("a height-only limit also writes maxWidth, which §5.2 requires alongside maxHeight")
    func infoJSONHeightOnly() throws {
        let info = IIIFImageInfo(id: "i", size: PixelSize(width: 10, height: 20), limits: IIIFLimits(maxHeight: 500))
        let document = try JSONDecoder().decode(IIIFInfoDocument.self, from: Data(info.json().utf8))
        #expect(document.maxHeight == 500)
        #expect(document.maxWidth == IIIFLimits.largestSide)
        #expect(document.maxArea == nil)
        #expect(document.extraFeatures?.contains("sizeUpscaling") == false)
    }

    @Test("the sizes and tiles info.json lists resolve to exactly those sizes")
    func infoSizesAreServable() throws {
        let image = PixelSize(width: 6000, height: 4000)
        let limits = IIIFLimits(maxWidth: 3000, maxHeight: 2000, maxArea: 6_000_000)
        for size in [PixelSize(width: 150, height: 100), PixelSize(width: 3000, height: 2000)] {
            let resolved = try Self.resolve("full/\(size.width),\(size.height)/0/default.jpg", image: image, limits: limits)
            #expect(resolved.scaledSize == size)
        }
        // A 512 tile at scale factor 4 in the last column: region 4096,0,1904,2048 shown at 476,512.
        let tile = try Self.resolve("4096,0,2048,2048/476,512/0/default.jpg", image: image, limits: limits)
        #expect(tile.region == PixelRect(x: 4096, y: 0, width: 1904, height: 2048))
        #expect(tile.scaledSize == PixelSize(width: 476, height: 512))
    }
}
