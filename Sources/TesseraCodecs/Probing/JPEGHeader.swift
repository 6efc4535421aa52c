import TesseraCore

/// Reads a JPEG's markers up to the first scan (SOS): frame size and type, components,
/// EXIF orientation and the Adobe transform flag. Pixel data is never read.
struct JPEGHeader {
    var size: PixelSize
    var componentCount: Int
    var precision: Int
    var isProgressive: Bool
    var exif = EXIFMetadata([])
    /// The raw APP1 EXIF block, kept for its embedded thumbnail.
    var exifBlock: [UInt8]?
    /// The ICC profile from the APP2 `ICC_PROFILE` chunks, joined in their sequence order.
    var iccProfileData: [UInt8]?

    init(reading stream: ByteStream) throws(ImageDecodingError) {
        stream.seek(to: 0)
        guard try stream.readExactly(2) == [0xFF, 0xD8] else { throw .corrupt(reason: "missing JPEG start marker") }
        var frame: (size: PixelSize, components: Int, precision: Int, progressive: Bool)?
        var exifBlock: [UInt8]?
        var profileChunks: [(sequence: UInt8, bytes: [UInt8])] = []
        var profileByteCount = 0
        scanning: while true {
            var marker = try stream.readUInt8()
            // Stray bytes between segments: skipped to the next marker, as libjpeg skips them
            // (with a warning; libvips, Pillow and browsers all show such files).
            while marker != 0xFF { marker = try stream.readUInt8() }
            while marker == 0xFF { marker = try stream.readUInt8() }  // fill bytes
            switch marker {
            case 0xD0...0xD7, 0x01:
                continue
            case 0xD9, 0xDA:
                break scanning
            default:
                break
            }
            let length = try stream.readBigEndian16()
            guard length >= 2 else { throw .corrupt(reason: "JPEG segment length \(length)") }
            let segmentEnd = stream.offset + length - 2
            switch marker {
            case 0xC0...0xC3, 0xC5...0xC7, 0xC9...0xCB, 0xCD...0xCF:
                let precision = Int(try stream.readUInt8())
                let height = try stream.readBigEndian16()
                let width = try stream.readBigEndian16()
                let components = Int(try stream.readUInt8())
                guard width > 0, height > 0 else {
                    throw .unsupported(reason: "JPEG with a zero-sized frame (DNL height)")
                }
                guard [1, 3, 4].contains(components) else {
                    throw .unsupported(reason: "JPEG with \(components) components")
                }
                let progressive = [0xC2, 0xC6, 0xCA, 0xCE].contains(marker)
                frame = (PixelSize(width: width, height: height), components, precision, progressive)
            case 0xE1 where exifBlock == nil:
                let payload = try stream.readExactly(length - 2)
                if payload.starts(with: Array("Exif\0\0".utf8)) { exifBlock = payload }
            case 0xE2 where length - 2 >= Self.profileMarker.count + 2 && profileByteCount <= ICCProfile.maximumByteCount:
                let payload = try stream.readExactly(length - 2)
                if payload.starts(with: Self.profileMarker) {
                    // ICC.1 Annex B: "ICC_PROFILE\0", the chunk's number from 1, the chunk count, data.
                    let chunk = Array(payload.dropFirst(Self.profileMarker.count + 2))
                    profileChunks.append((payload[Self.profileMarker.count], chunk))
                    profileByteCount += chunk.count
                }
            default:
                break
            }
            stream.seek(to: segmentEnd)
            if frame != nil && stream.isAtEnd { break }
        }
        guard let frame else { throw .corrupt(reason: "no JPEG frame header before the image data") }
        size = frame.size
        componentCount = frame.components
        precision = frame.precision
        isProgressive = frame.progressive
        self.exifBlock = exifBlock
        if let exifBlock { exif = EXIFMetadata(exifBlock) }
        if !profileChunks.isEmpty {
            // Out-of-order chunks are put in order; missing or repeated ones leave a profile that
            // fails validation, and so is ignored.
            iccProfileData = profileChunks.sorted { $0.sequence < $1.sequence }.flatMap(\.bytes)
        }
    }

    private static let profileMarker = Array("ICC_PROFILE\0".utf8)

    func properties(fileByteCount: Int) -> ImageProperties {
        var properties = ImageProperties(
            format: .jpeg, size: size, orientation: exif.orientation, hasAlpha: false,
            bitsPerComponent: precision,
            colorModel: componentCount == 1 ? .gray : componentCount == 4 ? .cmyk : .rgb,
            frameCount: 1, isProgressive: isProgressive, fileByteCount: fileByteCount,
            decodedFormat: componentCount == 1 ? .gray8 : .rgb8)
        properties.attachProfile(iccProfileData)
        return properties
    }
}
