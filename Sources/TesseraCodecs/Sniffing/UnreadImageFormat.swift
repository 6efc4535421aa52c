/// A still-image format Tessera recognises but does not decode, so that such a file is reported as
/// an unsupported image ("unsupported: BMP images are not read") rather than handed to ffmpeg,
/// which opens many of them as one-frame "videos" or fails with a video error.
///
/// Each signature is one the format's own readers check (the magic numbers libvips, Pillow and
/// `file(1)` use); formats without one (TGA before version 2) are recognised by their footer.
struct UnreadImageFormat: Equatable {
    /// The format's common name.
    let name: String

    /// The format of a file starting with `prefix` (up to ``ImageFormat/sniffLength`` bytes) and
    /// ending with `suffix` (its last 26 bytes, for TGA's footer), or nil when it is none of these.
    init?(prefix: [UInt8], suffix: [UInt8] = []) {
        func starts(_ signature: [UInt8]) -> Bool { prefix.count >= signature.count && Array(prefix[..<signature.count]) == signature }
        func starts(_ text: String) -> Bool { starts(Array(text.utf8)) }
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        if starts("BM") && prefix.count >= 18 && [12, 40, 52, 56, 64, 108, 124].contains(Int(prefix[14]) | Int(prefix[15]) << 8) {
            name = "BMP"
        } else if prefix.count >= 14, starts([0, 0, 1, 0]) || starts([0, 0, 2, 0]),
            (1...256).contains(Int(prefix[4]) | Int(prefix[5]) << 8), prefix[9] == 0
        {
            // A directory of 1…256 images whose first entry's reserved byte is 0: an MP4 whose
            // first box is 256 bytes long also starts 00 00 01 00, but "ft" follows.
            name = prefix[2] == 1 ? "ICO" : "CUR"
        } else if prefix.count >= 3, prefix[0] == UInt8(ascii: "P"), (UInt8(ascii: "1")...UInt8(ascii: "7")).contains(prefix[1]),
            isSpace(prefix[2])
        {
            name = prefix[1] == UInt8(ascii: "7") ? "PAM" : "PNM"
        } else if prefix.count >= 4, prefix[0] == 0x0A, prefix[1] <= 5, prefix[2] <= 1, [1, 2, 4, 8].contains(prefix[3]) {
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
            // gzip: an SVGZ drawing (librsvg reads them, Tessera does not yet) or any other gzipped
            // file; neither is a video.
            name = "gzip-compressed (SVGZ?)"
        } else if suffix.count >= 18, Array(suffix.suffix(18)) == Array("TRUEVISION-XFILE.\0".utf8) {
            name = "TGA"
        } else {
            return nil
        }
    }
}
