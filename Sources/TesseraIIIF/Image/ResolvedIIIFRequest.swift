public import TesseraCore

/// An IIIF image request in pixels: which pixels of the full-resolution image to cut, the output
/// size, the turn, and the canonical URI form. It has everything a renderer needs and nothing to
/// parse again.
///
/// Rounding rules (§4.7 leaves "the rounding method" to the implementation):
/// - `pct:x,y,w,h` regions round each *edge* to the nearest pixel boundary, halves up:
///   left = round(x% × width), right = round((x + w)% × width), and the same for y and h. The width
///   is right − left. Rounding edges rather than origin and size means regions that share a
///   boundary in percent share it in pixels, with no gap or overlap.
/// - A dimension derived from the aspect ratio (the height for `w,`, the width for `,h`, the other
///   side for `!w,h`, `pct:n`, and `max` under limits) is rounded to the nearest pixel, halves up.
///   It is computed in exact integer arithmetic, so `,h` on a 300×200 region is always
///   round(300 × h / 200).
/// - A side that binds (the `w` of `w,`, the box side that limits `!w,h`, a `maxWidth` that `max`
///   scales down to) is kept exactly; the derived side is never rounded past its bound.
public struct ResolvedIIIFRequest: Sendable, Hashable {
    /// The pixels to cut, in full-resolution image pixels (the space of info.json's `width` and
    /// `height`), clipped to the image. §4.1: a region that extends beyond the image is "cropped at
    /// the image's edge". Never empty.
    public let region: PixelRect
    /// The output size before rotation, in output pixels: what the region is scaled to. At least
    /// 1×1, and within the limits it was resolved under.
    public let scaledSize: PixelSize
    /// Mirroring and rotation, applied to the scaled region.
    public let rotation: IIIFImageRequest.Rotation
    /// The colour quality of the output.
    public let quality: IIIFImageRequest.Quality
    /// The output's encoding (never `auto`: negotiated before resolving).
    public let format: IIIFImageRequest.Format
    /// Whether ``region`` is the whole image, so a renderer can skip the cut.
    public let isFullRegion: Bool
    /// `{region}/{size}/{rotation}/{quality}.{format}` in the canonical form of §4.8, for the
    /// canonical `Link` header and as a cache key. Two requests for the same image get the same
    /// path:
    /// - region: `full` when the whole image is cut (also `square` of a square image, `0,0,W,H`, and
    ///   a region that covers the image once clipped), otherwise `x,y,w,h` of the clipped region;
    /// - size: `max` when the output is what `max` (and so `^max`) gives, otherwise `w,h`, with `^`
    ///   when it is larger than the region in either dimension;
    /// - rotation: `!` when mirrored, then the degrees as an integer when whole, else a decimal
    ///   without trailing zeros (`90`, `22.5`);
    /// - quality: as requested. §4.8 writes `default` only "if the server's default quality is
    ///   requested", so `color` stays `color`, though Tessera renders the two alike;
    /// - format: as requested (§4.8 "An explicit format string is always required").
    public let canonicalPath: String
    /// The output size after rotation, in output pixels. A quarter or three-quarter turn swaps the
    /// sides. Other angles give the bounding box of the turned ``scaledSize``, rounded up, so the
    /// whole image fits (§4.3: "no additional space between the corners of the rotated image
    /// contents and the bounding box"). Limits apply to ``scaledSize``, as §4.2 states them, so a
    /// turn can take this past them (by up to √2 per side).
    public let outputSize: PixelSize

    /// Whether the output is larger than the region in either dimension (a `^` size that upscales).
    public var isUpscaled: Bool { scaledSize.width > region.width || scaledSize.height > region.height }

    /// `request` resolved for an image of `imageSize` (full-resolution pixels, upright) under
    /// `limits`. The same as ``IIIFImageRequest/resolved(imageSize:limits:)``.
    public init(resolving request: IIIFImageRequest, imageSize: PixelSize, limits: IIIFLimits) throws(IIIFRequestError) {
        let region = try Self.rect(for: request.region, in: imageSize)
        let (scaledSize, canonicalSize) = try Self.scale(region.size, as: request.size, within: limits)
        try request.rotation.check(value: request.rotation.description)
        self.region = region
        self.scaledSize = scaledSize
        rotation = request.rotation
        quality = request.quality
        format = request.format
        isFullRegion = region == PixelRect(x: 0, y: 0, width: imageSize.width, height: imageSize.height)
        let canonicalRegion = isFullRegion ? "full" : IIIFImageRequest.Region.pixels(region).description
        canonicalPath = "\(canonicalRegion)/\(canonicalSize)/\(rotation)/\(quality.rawValue).\(format.rawValue)"
        outputSize = scaledSize.rotatedBounds(clockwiseDegrees: rotation.degrees)
    }

    // MARK: Region

    /// The full-resolution pixels `region` names in an image of `image`, clipped to it.
    static func rect(for region: IIIFImageRequest.Region, in image: PixelSize) throws(IIIFRequestError) -> PixelRect {
        let value = region.description
        try region.check(value: value)
        guard image.width >= 1, image.height >= 1 else {
            throw IIIFRequestError(.region, value, "cannot be cut from an empty \(image) image")
        }
        let outside = IIIFRequestError(.region, value, "lies entirely outside the \(image) image")
        switch region {
        case .full:
            return PixelRect(x: 0, y: 0, width: image.width, height: image.height)
        case .square:
            let side = min(image.width, image.height)
            return image.centered(PixelSize(width: side, height: side))
        case .pixels(let rect):
            guard rect.x < image.width, rect.y < image.height else { throw outside }
            // `image.width - rect.x` cannot overflow, where `rect.x + rect.width` could.
            return PixelRect(
                x: rect.x, y: rect.y,
                width: min(rect.width, image.width - rect.x), height: min(rect.height, image.height - rect.y))
        case .percent(let x, let y, let width, let height):
            guard x < 100, y < 100 else { throw outside }
            let left = edge(x, of: image.width), right = edge(x + width, of: image.width)
            let top = edge(y, of: image.height), bottom = edge(y + height, of: image.height)
            guard right > left else {
                throw IIIFRequestError(.region, value, "is less than 1 pixel wide on the \(image) image")
            }
            guard bottom > top else {
                throw IIIFRequestError(.region, value, "is less than 1 pixel high on the \(image) image")
            }
            return PixelRect(x: left, y: top, width: right - left, height: bottom - top)
        }
    }

    /// The pixel boundary nearest `percent` of `side` (halves up), clamped to `0...side`. A
    /// percentage so large that the product is infinite lands on `side`.
    private static func edge(_ percent: Double, of side: Int) -> Int {
        let pixels = (percent * Double(side) / 100).rounded()
        return pixels >= Double(side) ? side : Int(pixels)
    }

    // MARK: Size

    /// The output size (in output pixels) that `size` asks of a region of `region` pixels under
    /// `limits`, and its canonical form.
    static func scale(
        _ region: PixelSize, as size: IIIFImageRequest.Size, within limits: IIIFLimits
    ) throws(IIIFRequestError) -> (PixelSize, String) {
        let value = size.description
        try size.check(value: value)
        let widthBound = limits.widthBound, heightBound = limits.heightBound
        let maxSize = largestFit(
            region, width: min(region.width, widthBound), height: min(region.height, heightBound), area: limits.maxArea)
        let scaled: PixelSize
        switch size.kind {
        case .max:
            // `^max` is "the maximum size available" (§4.2). Tessera makes no size available above
            // the region's own unless asked for one explicitly (`^w,`, `^pct:n`…), as Cantaloupe
            // with its default maximum scale of 1 does: a 40-megapixel enlargement of a small
            // region is never what `^max` wants, and the official validator expects the full size.
            scaled = maxSize
            try requireOnePixel(scaled, region: region, value: value, limits: limits)
        case .bestFit(let width, let height):
            // §4.2 says `!w,h` is never larger than the region, but the official validator (and
            // the spec editors' reference server) refuse `!w,h` without `^` whenever fitting the
            // region into the box would enlarge it, which is when both box sides exceed the
            // region's. That rule is followed, so `!2000,3000` on a 1000×1000 image is 400.
            guard size.allowsUpscaling || width <= region.width || height <= region.height else {
                throw IIIFRequestError(.size, value, "would enlarge the \(region) region, which needs the ^ prefix")
            }
            // Limits shrink the box rather than refuse it: §4.2 says the result is "as large as
            // possible but not larger than … server-imposed limits".
            scaled = largestFit(
                region, width: min(width, widthBound), height: min(height, heightBound), area: limits.maxArea)
            try requireOnePixel(scaled, region: region, value: value, limits: limits)
            if scaled.width > region.width || scaled.height > region.height, !limits.allowsUpscaling {
                throw Self.upscalingUnavailable(value)
            }
        case .width(let width):
            scaled = PixelSize(width: width, height: roundedQuotient(region.height, times: width, over: region.width))
            try checkExplicit(scaled, region: region, size: size, value: value, limits: limits)
        case .height(let height):
            scaled = PixelSize(width: roundedQuotient(region.width, times: height, over: region.height), height: height)
            try checkExplicit(scaled, region: region, size: size, value: value, limits: limits)
        case .percent(let percent):
            scaled = PixelSize(
                width: percentOf(region.width, percent), height: percentOf(region.height, percent))
            try checkExplicit(scaled, region: region, size: size, value: value, limits: limits)
        case .exact(let width, let height):
            scaled = PixelSize(width: width, height: height)
            try checkExplicit(scaled, region: region, size: size, value: value, limits: limits)
        }

        let canonical: String
        if scaled == maxSize {
            canonical = "max"
        } else if scaled.width > region.width || scaled.height > region.height {
            canonical = "^\(scaled.width),\(scaled.height)"
        } else {
            canonical = "\(scaled.width),\(scaled.height)"
        }
        return (scaled, canonical)
    }

    /// The checks for a size the client spelled out (`w,`, `,h`, `pct:n`, `w,h`), in the order a
    /// client would fix them: at least 1 pixel; no larger than the region unless `^`; upscaling on
    /// offer; within the limits.
    private static func checkExplicit(
        _ scaled: PixelSize, region: PixelSize, size: IIIFImageRequest.Size, value: String, limits: IIIFLimits
    ) throws(IIIFRequestError) {
        try requireOnePixel(scaled, region: region, value: value, limits: nil)
        if scaled.width > region.width || scaled.height > region.height {
            guard size.allowsUpscaling else {
                // §4.2: "Requests for sizes not prefixed with ^ that result in a scaled region with
                // pixel dimensions greater than the pixel dimensions of the extracted region are
                // errors that SHOULD result in a 400".
                throw IIIFRequestError(.size, value, "is larger than the \(region) region, which needs the ^ prefix")
            }
            guard limits.allowsUpscaling else { throw upscalingUnavailable(value) }
        }
        if let violation = limits.violation(by: scaled) {
            throw IIIFRequestError(.size, value, violation, category: .tooLarge)
        }
    }

    /// §4.2: "the pixel dimensions of the scaled region MUST NOT be less than 1 pixel".
    private static func requireOnePixel(
        _ scaled: PixelSize, region: PixelSize, value: String, limits: IIIFLimits?
    ) throws(IIIFRequestError) {
        guard scaled.width < 1 || scaled.height < 1 else { return }
        let direction = scaled.width < 1 ? "wide" : "high"
        let within = limits.map { $0.summary.isEmpty ? "" : " within \($0.summary)" } ?? ""
        throw IIIFRequestError(.size, value, "would make the \(region) region less than 1 pixel \(direction)\(within)")
    }

    /// §4.2: a `^` size that needs upscaling "SHOULD result in a 501 (Not Implemented) status code
    /// if the server does not support upscaling".
    private static func upscalingUnavailable(_ value: String) -> IIIFRequestError {
        IIIFRequestError(
            .size, value, "needs upscaling, which this service does not offer (it publishes no maxWidth or maxArea)",
            category: .unsupported)
    }

    /// `percent` of `side`, rounded to the nearest pixel (halves up). A product too large for `Int`
    /// is reported as a side over every limit.
    private static func percentOf(_ side: Int, _ percent: Double) -> Int {
        let pixels = (Double(side) * percent / 100).rounded()
        return pixels < 0x1p62 ? Int(pixels) : 1 << 62
    }

    /// `a × b ÷ c` rounded to the nearest integer, halves up: exact in integers while `a × b` fits in
    /// an `Int`, otherwise in floating point. A result too large for `Int` comes back as 2⁶², which
    /// is over every limit. `a, b ≥ 0`, `c > 0`.
    static func roundedQuotient(_ a: Int, times b: Int, over c: Int) -> Int {
        let (product, overflow) = a.multipliedReportingOverflow(by: b)
        guard !overflow else {
            let quotient = (Double(a) * Double(b) / Double(c)).rounded()
            return quotient < 0x1p62 ? Int(quotient) : 1 << 62
        }
        let (quotient, remainder) = product.quotientAndRemainder(dividingBy: c)
        return remainder >= c - remainder ? quotient + 1 : quotient
    }

    /// The largest size with `region`'s aspect ratio that fits in `width` × `height` and, when given,
    /// in `area` pixels. The side that binds lands on its bound exactly; the other is rounded to the
    /// nearest pixel, never past its own bound. Under an area bound the region's longer side is the
    /// largest whose aspect-kept size fits in the area, so the shorter side carries the rounding. A side
    /// can come out 0 when the bounds leave less than a pixel; callers refuse that.
    static func largestFit(_ region: PixelSize, width: Int, height: Int, area: Int?) -> PixelSize {
        // Limits of 0 (or less) leave nothing.
        guard width >= 1, height >= 1, (area ?? 1) >= 1 else { return PixelSize(width: 0, height: 0) }
        // Whether the width binds: width / region.width ≤ height / region.height, compared exactly.
        let byWidth = width.multipliedFullWidth(by: region.height)
        let byHeight = height.multipliedFullWidth(by: region.width)
        let fit: PixelSize
        if (byWidth.high, byWidth.low) <= (byHeight.high, byHeight.low) {
            fit = PixelSize(width: width, height: min(height, roundedQuotient(region.height, times: width, over: region.width)))
        } else {
            fit = PixelSize(width: min(width, roundedQuotient(region.width, times: height, over: region.height)), height: height)
        }
        guard let area, fit.area > area else { return fit }

        let wide = region.width >= region.height
        let long = wide ? region.width : region.height, short = wide ? region.height : region.width
        let longBound = wide ? fit.width : fit.height, shortBound = wide ? fit.height : fit.width
        func shortFor(_ longSide: Int) -> Int { min(shortBound, roundedQuotient(short, times: longSide, over: long)) }
        func fits(_ longSide: Int) -> Bool {
            let (product, overflow) = longSide.multipliedReportingOverflow(by: shortFor(longSide))
            return !overflow && product <= area
        }
        // `longSide × shortFor(longSide)` grows with `longSide`, so a binary search finds the largest
        // long side within the area exactly (at most 31 steps for sides up to 2³⁰).
        var low = 0, high = longBound  // fits(low) always; the answer is in low...high
        while low < high {
            let middle = low + (high - low + 1) / 2
            if fits(middle) { low = middle } else { high = middle - 1 }
        }
        let longSide = low, shortSide = shortFor(low)
        return wide ? PixelSize(width: longSide, height: shortSide) : PixelSize(width: shortSide, height: longSide)
    }
}

/// The size limits an image service publishes in info.json (§5.2) and holds every request to. All
/// three are in output pixels (the scaled region before rotation), not source pixels: a source may
/// be larger, and `max` then scales it down to fit. Values should be positive; a limit of 0 refuses
/// every size.
public struct IIIFLimits: Sendable, Hashable {
    /// The widest output served.
    public var maxWidth: Int?
    /// The highest output served. §5.2: "If maxWidth is specified and maxHeight is not, then
    /// clients should infer that maxHeight = maxWidth", and requests are held to that too. §5.2
    /// also says "maxWidth MUST be specified if maxHeight is specified", so info.json writes the
    /// largest side this service makes (``largestSide``) as `maxWidth` when only `maxHeight` is set.
    public var maxHeight: Int?
    /// The most output pixels (width × height) served.
    public var maxArea: Int?

    /// Limits in output pixels; nil leaves one out.
    public init(maxWidth: Int? = nil, maxHeight: Int? = nil, maxArea: Int? = nil) {
        self.maxWidth = maxWidth
        self.maxHeight = maxHeight
        self.maxArea = maxArea
    }

    /// No published limits: every size up to the region's own is served, and nothing is upscaled.
    public static let none = IIIFLimits()

    /// The longest side this service makes whatever the limits say (`PixelSize/maximumScaledSide`).
    /// Past it a bitmap's byte count could overflow, so a larger size is refused as too large.
    public static let largestSide = PixelSize.maximumScaledSide

    /// Whether `^` sizes may enlarge the region. §5.7: "A server that supports sizeUpscaling MUST
    /// specify maxWidth or maxArea". Without either, upscaling is refused with 501.
    public var allowsUpscaling: Bool { maxWidth != nil || maxArea != nil }

    /// The widest output allowed, `maxWidth` or ``largestSide``.
    var widthBound: Int { min(maxWidth ?? Self.largestSide, Self.largestSide) }

    /// The highest output allowed: `maxHeight`, else `maxWidth` (as §5.2 has clients infer), else
    /// ``largestSide``.
    var heightBound: Int { min(maxHeight ?? maxWidth ?? Self.largestSide, Self.largestSide) }

    /// The limits that are set, as a message names them (`maxWidth 3000, maxArea 4000000`).
    var summary: String {
        [("maxWidth", maxWidth), ("maxHeight", maxHeight), ("maxArea", maxArea)]
            .compactMap { name, limit in limit.map { "\(name) \($0)" } }
            .joined(separator: ", ")
    }

    /// Why an output of `size` is over the limits, naming the limit, or nil when it is within them.
    func violation(by size: PixelSize) -> String? {
        if size.width > Self.largestSide || size.height > Self.largestSide {
            return "would make an image over \(Self.largestSide) pixels on a side, the most this service makes"
        }
        if let maxWidth, size.width > maxWidth {
            return "makes \(size) pixels, wider than maxWidth \(maxWidth)"
        }
        if let maxHeight, size.height > maxHeight {
            return "makes \(size) pixels, higher than maxHeight \(maxHeight)"
        }
        if maxHeight == nil, let maxWidth, size.height > maxWidth {
            return "makes \(size) pixels, higher than maxWidth \(maxWidth), which bounds the height too when maxHeight is not set"
        }
        if let maxArea, size.area > maxArea {
            return "makes \(size) = \(size.area) pixels, more than maxArea \(maxArea)"
        }
        return nil
    }
}
