import FoundationEssentials
import TesseraCore
import Testing

@testable import TesseraIIIF

extension IIIFRequestTests {
    // MARK: - Regions

    @Test(
        "the spec's region examples on its 300×200 image (§4.1)",
        arguments: [
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

    @Test(
        "square is the shorter side, centred in the longer, odd leftover to the right or bottom",
        arguments: [
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
        #expect(
            try Self.resolve("pct:15,0,15,100/max/0/default.jpg", image: image).region
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

    @Test(
        "regions outside the image or under a pixel are 400",
        arguments: [
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

    @Test(
        "the spec's size examples on its 300×200 image (§4.2)",
        arguments: [
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

    @Test(
        "the validator's size requests on its 1000×1000 image",
        arguments: [
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

    @Test(
        "aspect-derived sides round to the nearest pixel, halves up",
        arguments: [
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
    @Test(
        "^max is max, whatever the limits",
        arguments: [
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
    @Test(
        "without ^ nothing is larger than the region",
        arguments: [
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

    @Test(
        "!w,h with one box side within the region is not upscaling",
        arguments: [
            ("!1000,3000", PixelSize(width: 1000, height: 1000)),
            ("!3000,500", PixelSize(width: 500, height: 500)),
        ])
    func confinedWithinRegion(size: String, expected: PixelSize) throws {
        #expect(try Self.resolve("full/\(size)/0/default.jpg", image: Self.validator).scaledSize == expected)
    }

    @Test(
        "^ sizes that need upscaling are 501 when no maxWidth or maxArea is published",
        arguments: [
            IIIFLimits.none, IIIFLimits(maxHeight: 5000),
        ])
    func upscalingUnsupported(limits: IIIFLimits) throws {
        for size in ["^1500,", "^,1500", "^pct:150", "^1500,1500", "^!2000,2000", "^1000,1001"] {
            let error = try #require(Self.resolveError("full/\(size)/0/default.jpg", image: Self.validator, limits: limits))
            #expect(error.category == .unsupported, "\(size)")
            #expect(error.parameter == .size)
        }
        // ^ sizes that stay within the region are served, and ^max is max.
        #expect(
            try Self.resolve("full/^500,/0/default.jpg", image: Self.validator, limits: limits).scaledSize
                == PixelSize(width: 500, height: 500))
        #expect(
            try Self.resolve("full/^max/0/default.jpg", image: Self.validator, limits: limits).scaledSize
                == PixelSize(width: 1000, height: 1000))
        #expect(!limits.allowsUpscaling)
    }

    @Test(
        "sizes that round to 0 pixels are 400",
        arguments: [
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
    @Test(
        "explicit sizes over the limits are too large, naming the limit",
        arguments: [
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

    @Test(
        "max and !w,h scale down to fit the limits instead of failing",
        arguments: [
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
    @Test(
        "maxWidth alone bounds the height too",
        arguments: [
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
        let small = try Self.resolve(
            "full/^!9000,9000/0/default.jpg", image: PixelSize(width: 100, height: 100), limits: IIIFLimits(maxArea: 40_000_000))
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
        let error = try #require(
            Self.resolveError(
                "full/max/0/default.jpg", image: PixelSize(width: 1_000_000, height: 1), limits: IIIFLimits(maxArea: 100)))
        #expect(error.category == .badInput)
        #expect(error.description == "size \"max\" would make the 1000000×1 region less than 1 pixel high within maxArea 100")
    }

    @Test(
        "absurd sizes with absurd limits are too large, never a trap",
        arguments: [
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

    @Test(
        "output size: quarter turns swap, other angles take the bounding box rounded up",
        arguments: [
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

    @Test(
        "decimals are written plainly: integers when whole, no trailing zeros, no exponent",
        arguments: [
            (0.0, "0"), (90, "90"), (360, "360"), (22.5, "22.5"), (0.1, "0.1"), (1e-7, "0.0000001"),
            (359.99999, "359.99999"), (12.25, "12.25"), (1.5e-10, "0.00000000015"),
        ])
    func decimalStrings(value: Double, text: String) {
        #expect(IIIFRequestGrammar.decimalString(value) == text)
    }
}
