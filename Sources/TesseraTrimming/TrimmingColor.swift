/// An 8-bit sRGB colour with straight (not premultiplied) alpha, as in `PixelFormat.rgba8`.
public struct TrimmingColor: Sendable, Hashable {
    /// Red, 0–255.
    public var red: UInt8
    /// Green, 0–255.
    public var green: UInt8
    /// Blue, 0–255.
    public var blue: UInt8
    /// 0 is transparent, 255 opaque.
    public var alpha: UInt8

    /// A colour from its sRGB channels, opaque unless `alpha` says otherwise.
    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// The four channel bytes in `PixelFormat.rgba8` order.
    public var rgba: [UInt8] { [red, green, blue, alpha] }

    /// Fully transparent.
    public static let clear = TrimmingColor(red: 0, green: 0, blue: 0, alpha: 0)
    /// Opaque black.
    public static let black = TrimmingColor(red: 0, green: 0, blue: 0)
    /// Opaque white.
    public static let white = TrimmingColor(red: 255, green: 255, blue: 255)
}
