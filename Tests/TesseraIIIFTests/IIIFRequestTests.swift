import FoundationEssentials
import Testing
import TesseraCore
@testable import TesseraIIIF

/// The IIIF Image API 3.0 request model: parsing, resolution against an image and limits, the
/// canonical form, and info.json. Examples marked §… are the spec's own; the 1000×1000 cases are the
/// requests the official validator (`iiif-validator`, level 2) makes of its test image.
@Suite("IIIF image requests")
struct IIIFRequestTests {
    typealias Region = IIIFImageRequest.Region
    typealias Size = IIIFImageRequest.Size

    /// The spec's example image (§4.1, §4.2): 300×200.
    static let spec = PixelSize(width: 300, height: 200)
    /// The validator's test image.
    static let validator = PixelSize(width: 1000, height: 1000)

    /// The error parsing these segments throws, or nil when they parse.
    static func parseError(_ region: String, _ size: String, _ rotation: String, _ qualityAndFormat: String) -> IIIFRequestError? {
        do {
            _ = try IIIFImageRequest(region: region, size: size, rotation: rotation, qualityAndFormat: qualityAndFormat)
            return nil
        } catch {
            return error
        }
    }

    /// The error parsing and resolving `path` (`region/size/rotation/quality.format`) throws.
    static func resolveError(_ path: String, image: PixelSize, limits: IIIFLimits = .none) -> IIIFRequestError? {
        do {
            _ = try resolve(path, image: image, limits: limits)
            return nil
        } catch {
            return error
        }
    }

    static func resolve(_ path: String, image: PixelSize, limits: IIIFLimits = .none) throws(IIIFRequestError) -> ResolvedIIIFRequest {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        precondition(parts.count == 4, "a test path has four segments")
        return try IIIFImageRequest(region: parts[0], size: parts[1], rotation: parts[2], qualityAndFormat: parts[3])
            .resolved(imageSize: image, limits: limits)
    }

    // MARK: - Parsing

    @Test("every region form parses, percent-escapes decoded", arguments: [
        ("full", Region.full),
        ("square", .square),
        ("125,15,120,140", .pixels(PixelRect(x: 125, y: 15, width: 120, height: 140))),
        ("007,0,1,1", .pixels(PixelRect(x: 7, y: 0, width: 1, height: 1))),
        ("pct:41.6,7.5,40,70", .percent(x: 41.6, y: 7.5, width: 40, height: 70)),
        ("pct:0,0,100,100", .percent(x: 0, y: 0, width: 100, height: 100)),
        ("pct:.5,5.,1,1", .percent(x: 0.5, y: 5, width: 1, height: 1)),
        ("%66ull", .full),
        ("125%2C15%2c120%2C140", .pixels(PixelRect(x: 125, y: 15, width: 120, height: 140))),
        ("pct%3A10,10,80,80", .percent(x: 10, y: 10, width: 80, height: 80)),
    ])
    func regionForms(text: String, expected: Region) throws {
        let request = try IIIFImageRequest(region: text, size: "max", rotation: "0", qualityAndFormat: "default.jpg")
        #expect(request.region == expected)
    }

    @Test("every size form parses, with and without ^, percent-escapes decoded", arguments: [
        ("max", Size(.max)),
        ("^max", Size(.max, allowsUpscaling: true)),
        ("150,", Size(.width(150))),
        ("^360,", Size(.width(360), allowsUpscaling: true)),
        (",150", Size(.height(150))),
        ("^,240", Size(.height(240), allowsUpscaling: true)),
        ("pct:50", Size(.percent(50))),
        ("^pct:120", Size(.percent(120), allowsUpscaling: true)),
        ("pct:12.5", Size(.percent(12.5))),
        ("225,100", Size(.exact(width: 225, height: 100))),
        ("^360,360", Size(.exact(width: 360, height: 360), allowsUpscaling: true)),
        ("!225,100", Size(.bestFit(width: 225, height: 100))),
        ("^!360,360", Size(.bestFit(width: 360, height: 360), allowsUpscaling: true)),
        ("%5E360,", Size(.width(360), allowsUpscaling: true)),
        ("%21225%2C100", Size(.bestFit(width: 225, height: 100))),
        ("%5e%21360%2c360", Size(.bestFit(width: 360, height: 360), allowsUpscaling: true)),
    ])
    func sizeForms(text: String, expected: Size) throws {
        let request = try IIIFImageRequest(region: "full", size: text, rotation: "0", qualityAndFormat: "default.jpg")
        #expect(request.size == expected)
    }

    @Test("rotation: optional ! then 0…360 degrees, decimals allowed", arguments: [
        ("0", 0.0, false), ("90", 90, false), ("180", 180, false), ("270", 270, false), ("360", 360, false),
        ("22.5", 22.5, false), ("!0", 0, true), ("!180", 180, true), ("!345", 345, true),
        ("0.5", 0.5, false), ("022.50", 22.5, false), ("%2190", 90, true), ("359.999", 359.999, false),
    ])
    func rotationForms(text: String, degrees: Double, mirrored: Bool) throws {
        let request = try IIIFImageRequest(region: "full", size: "max", rotation: text, qualityAndFormat: "default.jpg")
        #expect(request.rotation == IIIFImageRequest.Rotation(degrees: degrees, mirrored: mirrored))
    }

    @Test("every quality with every format Tessera produces")
    func qualitiesAndFormats() throws {
        for quality in IIIFImageRequest.Quality.allCases {
            for format in IIIFImageRequest.Format.allCases {
                let request = try IIIFImageRequest(
                    region: "full", size: "max", rotation: "0", qualityAndFormat: "\(quality.rawValue).\(format.rawValue)")
                #expect(request.quality == quality && request.format == format)
            }
        }
        let escaped = try IIIFImageRequest(region: "full", size: "max", rotation: "0", qualityAndFormat: "gray%2Epng")
        #expect(escaped.quality == .gray && escaped.format == .png)
        #expect(IIIFImageRequest.Format.jpg.mediaType == "image/jpeg")
        #expect(IIIFImageRequest.Format.webp.mediaType == "image/webp")
    }

    /// Malformed segments: every one is 400 (bad input), and the message names the parameter at fault
    /// and quotes its value.
    @Test("malformed segments are 400 and name the parameter", arguments: [
        // region
        ("", "max", "0", "default.jpg", IIIFRequestError.Parameter.region),
        ("abc", "max", "0", "default.jpg", .region),
        ("Full", "max", "0", "default.jpg", .region),
        ("0,0,10", "max", "0", "default.jpg", .region),
        ("0,0,10,10,10", "max", "0", "default.jpg", .region),
        ("0,0,10,", "max", "0", "default.jpg", .region),
        ("-1,0,10,10", "max", "0", "default.jpg", .region),
        ("+5,0,10,10", "max", "0", "default.jpg", .region),
        ("0x10,0,10,10", "max", "0", "default.jpg", .region),
        (" 1,0,10,10", "max", "0", "default.jpg", .region),
        ("1 ,0,10,10", "max", "0", "default.jpg", .region),
        ("1.5,0,10,10", "max", "0", "default.jpg", .region),
        ("0,0,0,10", "max", "0", "default.jpg", .region),
        ("0,0,10,0", "max", "0", "default.jpg", .region),
        ("pct:", "max", "0", "default.jpg", .region),
        ("pct:1,2,3", "max", "0", "default.jpg", .region),
        ("pct:-1,0,10,10", "max", "0", "default.jpg", .region),
        ("pct:1e2,0,10,10", "max", "0", "default.jpg", .region),
        ("pct:inf,0,10,10", "max", "0", "default.jpg", .region),
        ("pct:nan,0,10,10", "max", "0", "default.jpg", .region),
        ("pct:1..2,0,10,10", "max", "0", "default.jpg", .region),
        ("pct:.,0,10,10", "max", "0", "default.jpg", .region),
        ("pct:0,0,0,10", "max", "0", "default.jpg", .region),
        ("%G0ll", "max", "0", "default.jpg", .region),
        ("full%", "max", "0", "default.jpg", .region),
        ("full%2", "max", "0", "default.jpg", .region),
        // size
        ("full", "", "0", "default.jpg", .size),
        ("full", "abcdef", "0", "default.jpg", .size),
        ("full", "full", "0", "default.jpg", .size),
        ("full", "MAX", "0", "default.jpg", .size),
        ("full", "0,", "0", "default.jpg", .size),
        ("full", ",0", "0", "default.jpg", .size),
        ("full", "0,0", "0", "default.jpg", .size),
        ("full", "!0,10", "0", "default.jpg", .size),
        ("full", "pct:0", "0", "default.jpg", .size),
        ("full", "pct:101", "0", "default.jpg", .size),
        ("full", "pct:-5", "0", "default.jpg", .size),
        ("full", "pct:", "0", "default.jpg", .size),
        ("full", "pct:5%25", "0", "default.jpg", .size),
        ("full", "!100,", "0", "default.jpg", .size),
        ("full", "!,100", "0", "default.jpg", .size),
        ("full", ",", "0", "default.jpg", .size),
        ("full", "^", "0", "default.jpg", .size),
        ("full", "^^max", "0", "default.jpg", .size),
        ("full", "!^100,100", "0", "default.jpg", .size),
        ("full", ",^240", "0", "default.jpg", .size),  // §4.2's example table misprints ^,240 this way
        ("full", "100,100,", "0", "default.jpg", .size),
        ("full", "1.5,", "0", "default.jpg", .size),
        ("full", "+5,", "0", "default.jpg", .size),
        ("full", "0x10,", "0", "default.jpg", .size),
        ("full", " 5,", "0", "default.jpg", .size),
        ("full", "5%20,", "0", "default.jpg", .size),
        ("full", "%5G100,", "0", "default.jpg", .size),
        // rotation
        ("full", "max", "", "default.jpg", .rotation),
        ("full", "max", "-90", "default.jpg", .rotation),
        ("full", "max", "361", "default.jpg", .rotation),
        ("full", "max", "360.0001", "default.jpg", .rotation),
        ("full", "max", "!", "default.jpg", .rotation),
        ("full", "max", "!!90", "default.jpg", .rotation),
        ("full", "max", "abcd", "default.jpg", .rotation),
        ("full", "max", "1e2", "default.jpg", .rotation),
        ("full", "max", "90deg", "default.jpg", .rotation),
        ("full", "max", "+90", "default.jpg", .rotation),
        ("full", "max", " 90", "default.jpg", .rotation),
        ("full", "max", "9 0", "default.jpg", .rotation),
        ("full", "max", ".", "default.jpg", .rotation),
        ("full", "max", "1.2.3", "default.jpg", .rotation),
        ("full", "max", "inf", "default.jpg", .rotation),
        ("full", "max", "nan", "default.jpg", .rotation),
        ("full", "max", "0x5A", "default.jpg", .rotation),
        ("full", "max", "90!", "default.jpg", .rotation),
        // quality and format
        ("full", "max", "0", "Default.jpg", .quality),
        ("full", "max", "0", "native.jpg", .quality),
        ("full", "max", "0", "best.png", .quality),
        ("full", "max", "0", ".jpg", .quality),
        ("full", "max", "0", "default.jpg.png", .quality),
        ("full", "max", "0", "default", .format),
        ("full", "max", "0", "default.", .format),
        ("full", "max", "0", "default.JPG", .format),
        ("full", "max", "0", "default.jpeg", .format),
        ("full", "max", "0", "gray.bmp", .format),
        ("full", "max", "0", "default.xyz", .format),
    ])
    func malformed(region: String, size: String, rotation: String, qualityAndFormat: String, parameter: IIIFRequestError.Parameter) throws {
        let error = try #require(Self.parseError(region, size, rotation, qualityAndFormat))
        #expect(error.category == .badInput)
        #expect(error.parameter == parameter)
        #expect(error.description.hasPrefix("\(parameter.rawValue) \""))
        #expect(!error.description.contains("\n"))
    }

    @Test("IIIF formats Tessera does not produce are 400, as §4.5 asks, with their own message", arguments: ["tif", "gif", "jp2", "pdf"])
    func formatsNotProduced(format: String) throws {
        let error = try #require(Self.parseError("full", "max", "0", "default.\(format)"))
        #expect(error.category == .badInput)
        #expect(error.parameter == .format)
        #expect(error.description == "format \"\(format)\" is not produced by this service, which produces jpg, png, webp and avif")
        let unknown = try #require(Self.parseError("full", "max", "0", "default.bmp"))
        #expect(unknown.description == "format \"bmp\" must be jpg, png, webp, avif or auto")
    }

    @Test("`auto` leaves the format to the Accept header: AVIF, then WebP, else JPEG; q=0 refuses a type")
    func negotiatedFormat() throws {
        let request = try IIIFImageRequest(region: "full", size: "max", rotation: "0", qualityAndFormat: "default.auto")
        #expect(request.negotiatesFormat && request.description == "full/max/0/default.auto")
        let plain = try IIIFImageRequest(region: "full", size: "max", rotation: "0", qualityAndFormat: "default.avif")
        #expect(!plain.negotiatesFormat && plain.format == .avif)
        let cases: [([String], IIIFImageRequest.Format)] = [
            (["image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8"], .avif),  // Chrome's
            (["image/webp,*/*"], .webp),
            (["image/png", "image/webp;q=0.5"], .webp),
            (["IMAGE/AVIF ; q=0.9"], .avif),
            (["image/avif;q=0, image/webp"], .webp),
            (["image/avif;q=0.0"], .jpg),
            (["*/*"], .jpg),
            ([], .jpg),
        ]
        for (accept, expected) in cases {
            #expect(IIIFImageRequest.Format.negotiated(accept: accept) == expected, "\(accept)")
        }
    }

    @Test("numbers too large for Int are 400, never a trap", arguments: [
        ("99999999999999999999,0,10,10", "max", IIIFRequestError.Parameter.region),
        ("0,0,10,99999999999999999999", "max", .region),
        ("full", "99999999999999999999,", .size),
        ("full", "^,99999999999999999999", .size),
        ("full", "!1,99999999999999999999", .size),
    ])
    func overflowingNumbers(region: String, size: String, parameter: IIIFRequestError.Parameter) throws {
        let error = try #require(Self.parseError(region, size, "0", "default.jpg"))
        #expect(error.category == .badInput)
        #expect(error.parameter == parameter)
        #expect(error.description.hasSuffix("has a number too large to be a pixel count"))
    }

    @Test("numbers too long for Double are out of range")
    func overlongDecimals() throws {
        let huge = "1" + String(repeating: "0", count: 400)
        #expect(Self.parseError("full", "max", huge, "default.jpg")?.parameter == .rotation)
        #expect(Self.parseError("full", "^pct:\(huge)", "0", "default.jpg")?.parameter == .size)
        #expect(Self.parseError("pct:\(huge),0,1,1", "max", "0", "default.jpg")?.parameter == .region)
    }

    // MARK: - Regions

    @Test("the spec's region examples on its 300×200 image (§4.1)", arguments: [
        ("full", PixelRect(x: 0, y: 0, width: 300, height: 200)),
        ("square", PixelRect(x: 50, y: 0, width: 200, height: 200)),
        ("125,15,120,140", PixelRect(x: 125, y: 15, width: 120, height: 140)),
        ("pct:41.6,7.5,40,70", PixelRect(x: 125, y: 15, width: 120, height: 140)),
        ("125,15,200,200", PixelRect(x: 125, y: 15, width: 175, height: 185)),  // "Returned image is 175,185 px"
        ("pct:41.6,7.5,66.6,100", PixelRect(x: 125, y: 15, width: 175, height: 185)),
    ])
    func specRegions(region: String, expected: PixelRect) throws {
        let resolved = try Self.resolve("\(region)/max/0/default.jpg", image: Self.spec)
        #expect(resolved.region == expected)
        #expect(resolved.scaledSize == expected.size)
        #expect(resolved.isFullRegion == (expected == PixelRect(x: 0, y: 0, width: 300, height: 200)))
    }

    @Test("square is the shorter side, centred in the longer, odd leftover to the right or bottom", arguments: [
        (PixelSize(width: 301, height: 200), PixelRect(x: 50, y: 0, width: 200, height: 200)),
        (PixelSize(width: 200, height: 301), PixelRect(x: 0, y: 50, width: 200, height: 200)),
        (PixelSize(width: 200, height: 200), PixelRect(x: 0, y: 0, width: 200, height: 200)),
        (PixelSize(width: 1, height: 5000), PixelRect(x: 0, y: 2499, width: 1, height: 1)),
    ])
    func squareRegion(image: PixelSize, expected: PixelRect) throws {
        let resolved = try Self.resolve("square/max/0/default.jpg", image: image)
        #expect(resolved.region == expected)
    }

    @Test("percent regions round each edge to the nearest pixel, so neighbours share their edge")
    func percentEdgesRound() throws {
        let image = PixelSize(width: 10, height: 10)
        // left = round(1.5) = 2, right = round(3.0) = 3: one pixel, where rounding origin and width
        // separately would give x 2, width 2.
        #expect(try Self.resolve("pct:15,0,15,100/max/0/default.jpg", image: image).region
            == PixelRect(x: 2, y: 0, width: 1, height: 10))
        let wide = PixelSize(width: 1000, height: 10)
        let first = try Self.resolve("pct:0,0,33.3,100/max/0/default.jpg", image: wide).region
        let second = try Self.resolve("pct:33.3,0,33.4,100/max/0/default.jpg", image: wide).region
        let third = try Self.resolve("pct:66.7,0,33.3,100/max/0/default.jpg", image: wide).region
        #expect(first.x + first.width == second.x)
        #expect(second.x + second.width == third.x)
        #expect(third.x + third.width == 1000)
        // A percentage far past 100 only clips.
        let huge = "1" + String(repeating: "0", count: 300)
        #expect(try Self.resolve("pct:0,0,\(huge),100/max/0/default.jpg", image: wide).isFullRegion)
    }

    @Test("regions outside the image or under a pixel are 400", arguments: [
        ("1000,0,10,10", "lies entirely outside the 1000×800 image"),
        ("0,800,10,10", "lies entirely outside the 1000×800 image"),
        ("9223372036854775807,0,1,1", "lies entirely outside the 1000×800 image"),
        ("pct:100,0,10,10", "lies entirely outside the 1000×800 image"),
        ("pct:0,100,10,10", "lies entirely outside the 1000×800 image"),
        ("pct:0,0,0.01,50", "is less than 1 pixel wide on the 1000×800 image"),
        ("pct:0,0,50,0.01", "is less than 1 pixel high on the 1000×800 image"),
        ("pct:99.99,0,10,10", "is less than 1 pixel wide on the 1000×800 image"),
    ])
    func regionErrors(region: String, reason: String) throws {
        let error = try #require(Self.resolveError("\(region)/max/0/default.jpg", image: PixelSize(width: 1000, height: 800)))
        #expect(error.category == .badInput)
        #expect(error.parameter == .region)
        #expect(error.reason == reason)
    }

    @Test("a region that overflows when added up is clipped, not trapped")
    func hugeRegionClips() throws {
        let max = Int.max
        let resolved = try Self.resolve("10,20,\(max),\(max)/max/0/default.jpg", image: Self.validator)
        #expect(resolved.region == PixelRect(x: 10, y: 20, width: 990, height: 980))
        #expect(try Self.resolve("0,0,\(max),\(max)/max/0/default.jpg", image: Self.validator).isFullRegion)
    }

    // MARK: - Sizes

    @Test("the spec's size examples on its 300×200 image (§4.2)", arguments: [
        ("max", IIIFLimits(maxWidth: 200), PixelSize(width: 200, height: 133)),  // "a maxWidth of 200px"
        ("150,", .none, PixelSize(width: 150, height: 100)),
        ("^360,", IIIFLimits(maxWidth: 360), PixelSize(width: 360, height: 240)),
        (",150", .none, PixelSize(width: 225, height: 150)),
        ("^,240", IIIFLimits(maxWidth: 360), PixelSize(width: 360, height: 240)),
        ("pct:50", .none, PixelSize(width: 150, height: 100)),
        ("^pct:120", IIIFLimits(maxWidth: 360), PixelSize(width: 360, height: 240)),
        ("225,100", .none, PixelSize(width: 225, height: 100)),
        ("^360,360", IIIFLimits(maxWidth: 360), PixelSize(width: 360, height: 360)),
        ("!225,100", .none, PixelSize(width: 150, height: 100)),  // "Returned image is 150,100 px"
        ("^!360,360", IIIFLimits(maxWidth: 360), PixelSize(width: 360, height: 240)),  // "360,240 px"
    ])
    func specSizes(size: String, limits: IIIFLimits, expected: PixelSize) throws {
        let resolved = try Self.resolve("full/\(size)/0/default.jpg", image: Self.spec, limits: limits)
        #expect(resolved.scaledSize == expected)
        #expect(resolved.outputSize == expected)
        #expect(resolved.isUpscaled == (expected.width > 300 || expected.height > 200))
    }

    @Test("the validator's size requests on its 1000×1000 image", arguments: [
        ("full/617,/0/default.jpg", PixelSize(width: 617, height: 617)),  // size_wc
        ("full/,696/0/default.jpg", PixelSize(width: 696, height: 696)),  // size_ch
        ("full/!512,700/0/default.jpg", PixelSize(width: 512, height: 512)),  // size_bwh
        ("full/pct:63/0/default.jpg", PixelSize(width: 630, height: 630)),  // size_percent
        ("full/640,480/0/default.jpg", PixelSize(width: 640, height: 480)),  // size_wh
        ("300,400,100,100/57,57/0/default.jpg", PixelSize(width: 57, height: 57)),  // size_region
        ("pct:31,51,9,9/max/0/default.jpg", PixelSize(width: 90, height: 90)),  // region_percent
        ("square/max/0/default.jpg", PixelSize(width: 1000, height: 1000)),  // region_square
    ])
    func validatorSizes(path: String, expected: PixelSize) throws {
        #expect(try Self.resolve(path, image: Self.validator).scaledSize == expected)
    }

    @Test("aspect-derived sides round to the nearest pixel, halves up", arguments: [
        ("full/100,/0/default.jpg", PixelSize(width: 100, height: 67)),  // 66.67
        ("full/,100/0/default.jpg", PixelSize(width: 150, height: 100)),
        ("full/3,/0/default.jpg", PixelSize(width: 3, height: 2)),  // exactly 2
        ("full/1,/0/default.jpg", PixelSize(width: 1, height: 1)),  // 0.67
        ("full/,1/0/default.jpg", PixelSize(width: 2, height: 1)),  // 1.5 rounds up
        ("full/pct:0.5/0/default.jpg", PixelSize(width: 2, height: 1)),  // 1.5 and 1.0
        ("full/!100,100/0/default.jpg", PixelSize(width: 100, height: 67)),
        ("full/!100,50/0/default.jpg", PixelSize(width: 75, height: 50)),  // the height binds
    ])
    func aspectRounding(path: String, expected: PixelSize) throws {
        #expect(try Self.resolve(path, image: Self.spec).scaledSize == expected)
    }

    /// §4.2 defines `^max` as the largest size the limits permit; Tessera resolves it as `max` and offers
    /// no size above the region's own unless one is asked for explicitly (see `ResolvedIIIFRequest`).
    @Test("^max is max, whatever the limits", arguments: [
        IIIFLimits.none, IIIFLimits(maxWidth: 360), IIIFLimits(maxWidth: 200), IIIFLimits(maxArea: 40_000_000),
        IIIFLimits(maxWidth: .max, maxHeight: .max, maxArea: .max),
    ])
    func caretMaxIsMax(limits: IIIFLimits) throws {
        let caret = try Self.resolve("full/^max/0/default.jpg", image: Self.spec, limits: limits)
        let plain = try Self.resolve("full/max/0/default.jpg", image: Self.spec, limits: limits)
        #expect(caret.scaledSize == plain.scaledSize)
        #expect(!caret.isUpscaled)
        #expect(caret.canonicalPath == "full/max/0/default.jpg")
    }

    /// §4.2 and the validator's size_noup: without `^`, a size larger than the region is 400. `!w,h`
    /// counts as larger when both box sides exceed the region's.
    @Test("without ^ nothing is larger than the region", arguments: [
        "1500,1500", ",1500", "1500,", "pct:200", "!2000,3000", "1001,1000", "1000,1001", "pct:100.1",
    ])
    func noUpscalingWithoutCaret(size: String) throws {
        let limits = IIIFLimits(maxWidth: 5000)
        let error = try #require(Self.resolveError("full/\(size)/0/default.jpg", image: Self.validator, limits: limits))
        #expect(error.category == .badInput)
        #expect(error.parameter == .size)
        #expect(error.description.hasPrefix("size \"\(size)\""))
        // The same size with ^ is served.
        let upscaled = try Self.resolve("full/^\(size)/0/default.jpg", image: Self.validator, limits: limits)
        #expect(upscaled.isUpscaled)
    }

    @Test("!w,h with one box side within the region is not upscaling", arguments: [
        ("!1000,3000", PixelSize(width: 1000, height: 1000)),
        ("!3000,500", PixelSize(width: 500, height: 500)),
    ])
    func confinedWithinRegion(size: String, expected: PixelSize) throws {
        #expect(try Self.resolve("full/\(size)/0/default.jpg", image: Self.validator).scaledSize == expected)
    }

    @Test("^ sizes that need upscaling are 501 when no maxWidth or maxArea is published", arguments: [
        IIIFLimits.none, IIIFLimits(maxHeight: 5000),
    ])
    func upscalingUnsupported(limits: IIIFLimits) throws {
        for size in ["^1500,", "^,1500", "^pct:150", "^1500,1500", "^!2000,2000", "^1000,1001"] {
            let error = try #require(Self.resolveError("full/\(size)/0/default.jpg", image: Self.validator, limits: limits))
            #expect(error.category == .unsupported, "\(size)")
            #expect(error.parameter == .size)
        }
        // ^ sizes that stay within the region are served, and ^max is max.
        #expect(try Self.resolve("full/^500,/0/default.jpg", image: Self.validator, limits: limits).scaledSize
            == PixelSize(width: 500, height: 500))
        #expect(try Self.resolve("full/^max/0/default.jpg", image: Self.validator, limits: limits).scaledSize
            == PixelSize(width: 1000, height: 1000))
        #expect(!limits.allowsUpscaling)
    }

    @Test("sizes that round to 0 pixels are 400", arguments: [
        ("full/pct:1/0/default.jpg", PixelSize(width: 10, height: 10)),
        ("full/1,/0/default.jpg", PixelSize(width: 1000, height: 10)),
        ("full/,1/0/default.jpg", PixelSize(width: 10, height: 1000)),
        ("full/!1,1/0/default.jpg", PixelSize(width: 1000, height: 10)),
        ("full/!1,1/0/default.jpg", PixelSize(width: 10, height: 1000)),
    ])
    func zeroPixelSizes(path: String, image: PixelSize) throws {
        let error = try #require(Self.resolveError(path, image: image))
        #expect(error.category == .badInput)
        #expect(error.parameter == .size)
        #expect(error.reason.contains("less than 1 pixel"))
    }

    // MARK: - Limits

    /// Explicit sizes over a limit are refused as too large (400) with the limit named; with or
    /// without `^`.
    @Test("explicit sizes over the limits are too large, naming the limit", arguments: [
        ("600,", IIIFLimits(maxWidth: 500), "maxWidth 500"),
        (",600", IIIFLimits(maxWidth: 800, maxHeight: 500), "maxHeight 500"),
        ("400,600", IIIFLimits(maxWidth: 500), "maxWidth 500, which bounds the height too"),
        ("200,200", IIIFLimits(maxArea: 10_000), "maxArea 10000"),
        ("pct:50", IIIFLimits(maxArea: 100_000), "maxArea 100000"),
        ("^2000,", IIIFLimits(maxWidth: 1500), "maxWidth 1500"),
        ("^,2000", IIIFLimits(maxWidth: 1500), "maxWidth 1500"),
        ("^1200,1200", IIIFLimits(maxArea: 1_000_000), "maxArea 1000000"),
        ("^pct:300", IIIFLimits(maxWidth: 2000, maxHeight: 4000), "maxWidth 2000"),
    ])
    func explicitOverLimits(size: String, limits: IIIFLimits, named: String) throws {
        let error = try #require(Self.resolveError("full/\(size)/0/default.jpg", image: Self.validator, limits: limits))
        #expect(error.category == .tooLarge)
        #expect(error.parameter == .size)
        #expect(error.description.contains(named))
    }

    @Test("max and !w,h scale down to fit the limits instead of failing", arguments: [
        ("max", IIIFLimits(maxWidth: 300), PixelSize(width: 300, height: 150)),
        ("max", IIIFLimits(maxWidth: 2000, maxHeight: 100), PixelSize(width: 200, height: 100)),
        ("max", IIIFLimits(maxArea: 20_000), PixelSize(width: 200, height: 100)),
        ("max", IIIFLimits(maxArea: 20_300), PixelSize(width: 200, height: 100)),  // 201 wide is 100.5 → 101 high
        ("max", IIIFLimits(maxArea: 20_301), PixelSize(width: 201, height: 101)),
        ("!400,400", IIIFLimits(maxArea: 20_000), PixelSize(width: 200, height: 100)),
        ("!400,400", IIIFLimits(maxWidth: 300), PixelSize(width: 300, height: 150)),
        ("^max", IIIFLimits(maxWidth: 300), PixelSize(width: 300, height: 150)),
        ("^max", IIIFLimits(maxWidth: 4000, maxHeight: 1500), PixelSize(width: 1000, height: 500)),
        ("^!5000,5000", IIIFLimits(maxArea: 2_000_000), PixelSize(width: 2000, height: 1000)),
    ])
    func confinedByLimits(size: String, limits: IIIFLimits, expected: PixelSize) throws {
        let image = PixelSize(width: 1000, height: 500)
        let resolved = try Self.resolve("full/\(size)/0/default.jpg", image: image, limits: limits)
        #expect(resolved.scaledSize == expected)
        #expect(limits.violation(by: resolved.scaledSize) == nil)
    }

    /// §5.2: "If maxWidth is specified and maxHeight is not, then clients should infer that
    /// maxHeight = maxWidth". A portrait image shows whether the inferred height binds.
    @Test("maxWidth alone bounds the height too", arguments: [
        ("max", PixelSize(width: 150, height: 300)),
        ("^max", PixelSize(width: 150, height: 300)),
        ("!400,1000", PixelSize(width: 150, height: 300)),
        ("^!2000,2000", PixelSize(width: 150, height: 300)),
        ("pct:30", PixelSize(width: 150, height: 300)),
    ])
    func maxWidthBoundsHeight(size: String, expected: PixelSize) throws {
        let resolved = try Self.resolve("full/\(size)/0/default.jpg", image: PixelSize(width: 500, height: 1000), limits: IIIFLimits(maxWidth: 300))
        #expect(resolved.scaledSize == expected)
        #expect(resolved.canonicalPath == "full/max/0/default.jpg")
    }

    @Test("max under maxArea is the largest aspect-kept size within it")
    func maxAreaIsLargest() throws {
        // §5.2's example limits on its 6000×4000 image.
        let image = PixelSize(width: 6000, height: 4000)
        let area = try Self.resolve("full/max/0/default.jpg", image: image, limits: IIIFLimits(maxArea: 4_000_000))
        #expect(area.scaledSize == PixelSize(width: 2449, height: 1633))  // 2450 would need 1633: 4000850 pixels
        let all = IIIFLimits(maxWidth: 3000, maxHeight: 2000, maxArea: 4_000_000)
        #expect(try Self.resolve("full/max/0/default.jpg", image: image, limits: all).scaledSize == PixelSize(width: 2449, height: 1633))
        // Tessera's default limits (maxArea 40 000 000) confine a large upscaling box on a 100×100
        // region to 6324×6324.
        let small = try Self.resolve("full/^!9000,9000/0/default.jpg", image: PixelSize(width: 100, height: 100), limits: IIIFLimits(maxArea: 40_000_000))
        #expect(small.scaledSize == PixelSize(width: 6324, height: 6324))
        // Every size from 1 to 300 wide, against areas that cut it: never over, and one more pixel
        // on the long side would be.
        for width in stride(from: 1, through: 300, by: 7) {
            for maxArea in [1, 2, 10, 99, 1000, 4321] {
                let region = PixelSize(width: width, height: 37)
                let fit = ResolvedIIIFRequest.largestFit(region, width: 1 << 30, height: 1 << 30, area: maxArea)
                guard fit.width >= 1, fit.height >= 1 else { continue }
                #expect(fit.area <= maxArea, "\(region) in \(maxArea)")
                let wide = width >= 37
                let longer = wide ? fit.width + 1 : fit.height + 1
                let short = ResolvedIIIFRequest.roundedQuotient(wide ? 37 : width, times: longer, over: wide ? width : 37)
                #expect(longer * short > maxArea, "\(region) in \(maxArea): \(fit) is not the largest")
            }
        }
    }

    @Test("a limit that leaves less than a pixel is 400, naming the limits")
    func limitsTooSmall() throws {
        let error = try #require(Self.resolveError(
            "full/max/0/default.jpg", image: PixelSize(width: 1_000_000, height: 1), limits: IIIFLimits(maxArea: 100)))
        #expect(error.category == .badInput)
        #expect(error.description == "size \"max\" would make the 1000000×1 region less than 1 pixel high within maxArea 100")
    }

    @Test("absurd sizes with absurd limits are too large, never a trap", arguments: [
        "^9223372036854775807,", "^,9223372036854775807", "^9223372036854775807,9223372036854775807",
        "^pct:99999999999999999999", "^4611686018427387904,2",
    ])
    func absurdSizes(size: String) throws {
        let limits = IIIFLimits(maxWidth: .max, maxHeight: .max, maxArea: .max)
        let error = try #require(Self.resolveError("full/\(size)/0/default.jpg", image: Self.spec, limits: limits))
        #expect(error.category == .tooLarge)
        #expect(error.description.contains("\(IIIFLimits.largestSide)"))
        // The largest aspect-kept box under the same limits stops at the largest side.
        let largest = try Self.resolve("full/^!9223372036854775807,9223372036854775807/0/default.jpg", image: Self.spec, limits: limits)
        #expect(largest.scaledSize.width == IIIFLimits.largestSide)
    }

    // MARK: - Rotation

    @Test("output size: quarter turns swap, other angles take the bounding box rounded up", arguments: [
        ("0", PixelSize(width: 300, height: 200)),
        ("90", PixelSize(width: 200, height: 300)),
        ("180", PixelSize(width: 300, height: 200)),
        ("270", PixelSize(width: 200, height: 300)),
        ("360", PixelSize(width: 300, height: 200)),
        ("!90", PixelSize(width: 200, height: 300)),
        ("!0", PixelSize(width: 300, height: 200)),
        ("22.5", PixelSize(width: 354, height: 300)),  // 353.7 × 299.6
        ("45", PixelSize(width: 354, height: 354)),  // 353.55
        ("!345", PixelSize(width: 342, height: 271)),  // 341.5 × 270.8
    ])
    func rotatedOutput(rotation: String, expected: PixelSize) throws {
        let resolved = try Self.resolve("full/max/\(rotation)/default.png", image: Self.spec)
        #expect(resolved.scaledSize == PixelSize(width: 300, height: 200))
        #expect(resolved.outputSize == expected)
    }

    @Test("a rotation built in code out of range is refused when resolved")
    func programmaticRotationChecked() throws {
        let request = IIIFImageRequest(rotation: IIIFImageRequest.Rotation(degrees: 400))
        do {
            _ = try request.resolved(imageSize: Self.spec, limits: .none)
            Issue.record("a rotation of 400° resolved")
        } catch {
            #expect(error.parameter == .rotation && error.category == .badInput)
            #expect(error.description == "rotation \"400\" must be from 0 to 360 degrees")
        }
    }

    @Test("decimals are written plainly: integers when whole, no trailing zeros, no exponent", arguments: [
        (0.0, "0"), (90, "90"), (360, "360"), (22.5, "22.5"), (0.1, "0.1"), (1e-7, "0.0000001"),
        (359.99999, "359.99999"), (12.25, "12.25"), (1.5e-10, "0.00000000015"),
    ])
    func decimalStrings(value: Double, text: String) {
        #expect(IIIFImageRequest.decimalString(value) == text)
    }

    // MARK: - Canonical form

    /// §4.8's canonical form; the left column is what a client sent.
    @Test("canonical paths", arguments: [
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

    /// info.json as a client reads it.
    struct InfoDocument: Decodable {
        struct SizeEntry: Decodable, Equatable { var width: Int, height: Int }
        struct TileEntry: Decodable, Equatable { var width: Int, height: Int, scaleFactors: [Int] }
        var context: String
        var id: String
        var type: String
        var `protocol`: String
        var profile: String
        var width: Int
        var height: Int
        var maxWidth: Int?
        var maxHeight: Int?
        var maxArea: Int?
        var sizes: [SizeEntry]?
        var tiles: [TileEntry]?
        var extraFormats: [String]?
        var extraQualities: [String]?
        var extraFeatures: [String]?

        enum CodingKeys: String, CodingKey {
            case context = "@context", id, type, `protocol`, profile, width, height, maxWidth, maxHeight, maxArea
            case sizes, tiles, extraFormats, extraQualities, extraFeatures
        }
    }

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
        let document = try JSONDecoder().decode(InfoDocument.self, from: Data(json.utf8))
        #expect(document.context == "http://iiif.io/api/image/3/context.json")
        #expect(document.id == id)
        #expect(document.type == "ImageService3")
        #expect(document.protocol == "http://iiif.io/api/image")
        #expect(document.profile == "level2")
        #expect(document.width == 6000 && document.height == 4000)
        #expect(document.maxWidth == 3000 && document.maxHeight == 2000 && document.maxArea == 4_000_000)
        #expect(document.sizes == [.init(width: 150, height: 100), .init(width: 600, height: 400)])
        #expect(document.tiles == [
            .init(width: 512, height: 512, scaleFactors: [1, 2, 4, 8, 16]), .init(width: 1024, height: 2048, scaleFactors: [32]),
        ])
        #expect(document.extraFormats == ["webp", "avif"])
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
        let document = try JSONDecoder().decode(InfoDocument.self, from: Data(json.utf8))
        #expect(document.extraFeatures == ["mirroring", "rotationArbitrary", "profileLinkHeader", "canonicalLinkHeader"])
    }

    @Test("a height-only limit also writes maxWidth, which §5.2 requires alongside maxHeight")
    func infoJSONHeightOnly() throws {
        let info = IIIFImageInfo(id: "i", size: PixelSize(width: 10, height: 20), limits: IIIFLimits(maxHeight: 500))
        let document = try JSONDecoder().decode(InfoDocument.self, from: Data(info.json().utf8))
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
