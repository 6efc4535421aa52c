/// An 8-bit sRGB colour with straight (not premultiplied) alpha, as in ``PixelFormat/rgba8``.
public struct TrimmingColor: Sendable, Hashable {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8
    /// 0 is transparent, 255 opaque.
    public var alpha: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// The four channel bytes in ``PixelFormat/rgba8`` order.
    public var rgba: [UInt8] { [red, green, blue, alpha] }

    public static let clear = TrimmingColor(red: 0, green: 0, blue: 0, alpha: 0)
    public static let black = TrimmingColor(red: 0, green: 0, blue: 0)
    public static let white = TrimmingColor(red: 255, green: 255, blue: 255)
}
