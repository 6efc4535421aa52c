import FoundationEssentials
import TesseraCore
import Testing

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

    @Test(
        "every region form parses, percent-escapes decoded",
        arguments: [
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

    @Test(
        "every size form parses, with and without ^, percent-escapes decoded",
        arguments: [
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

    @Test(
        "rotation: optional ! then 0…360 degrees, decimals allowed",
        arguments: [
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
    @Test(
        "malformed segments are 400 and name the parameter",
        arguments: [
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
        #expect(error.description == "format \"\(format)\" is not produced by this service, which produces jpg, png, webp, avif and jxl")
        let unknown = try #require(Self.parseError("full", "max", "0", "default.bmp"))
        #expect(unknown.description == "format \"bmp\" must be jpg, png, webp, avif, jxl or auto")
    }

    @Test("`auto` leaves the format to the Accept header: JPEG XL, AVIF, then WebP, else JPEG; q=0 refuses a type")
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
            (["image/jxl,image/avif,image/webp,*/*"], .jxl),  // Safari 17's
            (["image/jxl;q=0,image/avif"], .avif),
            (["*/*"], .jpg),
            ([], .jpg),
        ]
        for (accept, expected) in cases {
            #expect(IIIFImageRequest.Format.negotiated(accept: accept) == expected, "\(accept)")
        }
    }

    @Test(
        "numbers too large for Int are 400, never a trap",
        arguments: [
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
}
