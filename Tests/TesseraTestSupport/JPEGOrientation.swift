public import FoundationEssentials
public import TesseraCore

/// A JPEG with an Exif APP1 segment holding only the Orientation tag (a big-endian TIFF
/// structure of one entry), after SOI and the JFIF APP0 if there is one.
public func jpegWithOrientation(_ jpeg: Data, _ orientation: Orientation) -> Data {
    var bytes = [UInt8](jpeg)
    precondition(bytes.count > 6 && bytes[0] == 0xFF && bytes[1] == 0xD8, "not a JPEG")
    var at = 2
    if bytes[2] == 0xFF, bytes[3] == 0xE0 { at = 4 + Int(bytes[4]) << 8 + Int(bytes[5]) }
    let tiff: [UInt8] = [
        0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8,  // "MM", 42, IFD0 at 8
        0, 1,  // one entry: 274 (Orientation), SHORT, 1 value
        0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, UInt8(orientation.rawValue), 0, 0,
        0, 0, 0, 0,
    ]  // no IFD1
    let payload = Array("Exif".utf8) + [0, 0] + tiff
    let length = payload.count + 2
    bytes.insert(contentsOf: [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload, at: at)
    return Data(bytes)
}
