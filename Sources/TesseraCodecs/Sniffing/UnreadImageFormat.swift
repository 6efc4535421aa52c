/// A still-image format Tessera recognises but does not decode, so that such a file is reported as
/// an unsupported image ("unsupported: BMP images are not read") rather than handed to ffmpeg,
/// which opens many of them as one-frame "videos" or fails with a video error.
///
/// Each signature is one the format's own readers check (the magic numbers libvips, Pillow and
/// `file(1)` use).
struct UnreadImageFormat: Equatable {
    /// The format's common name.
    let name: String

    /// The format of a file starting with `prefix` (up to ``ImageFormat/sniffLength`` bytes), or
    /// nil when it is none of these.
    init?(prefix: [UInt8]) {
        func starts(_ signature: [UInt8]) -> Bool { prefix.count >= signature.count && Array(prefix[..<signature.count]) == signature }
        func starts(_ text: String) -> Bool { starts(Array(text.utf8)) }
        if prefix.count >= 4, prefix[0] == 0x0A, prefix[1] <= 5, prefix[2] <= 1, [1, 2, 4, 8].contains(prefix[3]) {
            name = "PCX"
        } else if starts("8BPS") {
            name = "Photoshop (PSD)"
        } else if starts("qoif") {
            name = "QOI"
        } else if starts([0x76, 0x2F, 0x31, 0x01]) {
            name = "OpenEXR"
        } else if starts("#?RADIANCE") || starts("#?RGBE") {
            name = "Radiance HDR"
        } else if starts("DDS ") {
            name = "DirectDraw Surface (DDS)"
        } else if starts([0x1F, 0x8B]) {
            // gzip of anything but an SVG drawing (that is read: ImageFormat); not a video either.
            name = "gzip-compressed"
        } else {
            return nil
        }
    }
}
