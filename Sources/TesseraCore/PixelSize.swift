/// A size in pixels: the unit of memory and of decoded bitmaps.
public struct PixelSize: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// A size of `width` × `height` pixels; sides are not checked (0 or negative is the caller's to refuse).
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// Number of pixels (`width × height`), computed without overflow for any `Int` sides.
    public var area: Int { width.multipliedReportingOverflow(by: height).overflow ? .max : width * height }

    /// The longer side.
    public var longestSide: Int { max(width, height) }

    /// Width and height exchanged, as after a quarter turn.
    public var transposed: PixelSize { PixelSize(width: height, height: width) }

    /// Bytes a bitmap of this size takes in `format` (tightly packed rows).
    public func byteCount(in format: PixelFormat) -> Int {
        let (bytes, overflow) = area.multipliedReportingOverflow(by: format.bytesPerPixel)
        return overflow ? .max : bytes
    }

    public var description: String { "\(width)×\(height)" }
}

/// A size in points: the unit of layout. Points × scale = pixels.
public struct PointSize: Hashable, Sendable, Codable {
    /// Width in points.
    public var width: Double
    /// Height in points.
    public var height: Double

    /// A size of `width` × `height` points; ``pixels(at:)`` gives the pixels it needs at a scale.
    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    /// The pixels needed to fill this size on a screen of `scale` (a 100×100-point cell at 3x needs
    /// 300×300 pixels). Fractions round up, so the bitmap never falls short of the screen. Sizes
    /// past `Int.max` pixels (a width of 1e300 points) saturate there, and NaN or negative ones are
    /// 0, so callers' range checks refuse them instead of the conversion trapping.
    public func pixels(at scale: DisplayScale) -> PixelSize {
        PixelSize(width: Self.saturating((width * scale.value).rounded(.up)), height: Self.saturating((height * scale.value).rounded(.up)))
    }

    private static func saturating(_ value: Double) -> Int {
        guard value > 0 else { return 0 }  // also NaN
        return value >= 9_223_372_036_854_775_807.0 ? .max : Int(value)
    }
}

/// Screen pixels per point: 1x, 2x, 3x, or any positive factor.
public struct DisplayScale: Hashable, Sendable, Codable, ExpressibleByFloatLiteral, ExpressibleByIntegerLiteral {
    /// Pixels per point, finite and greater than 0.
    public let value: Double

    /// A scale known to be valid; a value that is not finite and positive is a programming error.
    /// Hosts taking a scale from outside use ``init(validating:)``.
    public init(_ value: Double) {
        precondition(value > 0 && value.isFinite, "a display scale must be positive")
        self.value = value
    }

    /// A scale from outside (an option, a query string).
    /// - Throws: ``InvalidArgumentError`` unless `value` is finite and greater than 0.
    public init(validating value: Double) throws(InvalidArgumentError) {
        guard value > 0, value.isFinite else { throw InvalidArgumentError("scale", "must be a finite number greater than 0") }
        self.value = value
    }

    public init(floatLiteral value: Double) { self.init(value) }
    public init(integerLiteral value: Int) { self.init(Double(value)) }

    /// One pixel per point.
    public static let x1: DisplayScale = 1
    /// Two pixels per point along each side (a "Retina" screen).
    public static let x2: DisplayScale = 2
    /// Three pixels per point along each side.
    public static let x3: DisplayScale = 3
}
