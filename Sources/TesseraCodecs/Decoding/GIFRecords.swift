import CGIF

/// giflib's record loop and colour tables, shared by the still reader (``GIFScanlineReader``, the
/// first frame) and the animation's (``GIFFrameDecoder``, every frame).
enum GIFRecords {
    /// The graphic control extension that came before an image.
    struct Control {
        /// GIF's disposal method, 0–7 (2: restore to background, 3: to previous; others: keep).
        var disposal = 0
        /// The palette index that is transparent; -1 for none.
        var transparentIndex = -1
    }

    /// Reads records up to and including the next image descriptor, whose frame is then in
    /// `gif.pointee.Image`; the graphic control before it, or nil at the trailer (or a record giflib
    /// does not know, where browsers stop too).
    static func nextImage(_ gif: UnsafeMutablePointer<GifFileType>) throws(ImageDecodingError) -> Control? {
        var control = Control()
        while true {
            var record = UNDEFINED_RECORD_TYPE
            try check(DGifGetRecordType(gif, &record), gif)
            switch record {
            case EXTENSION_RECORD_TYPE:
                var code: Int32 = 0
                var block: UnsafeMutablePointer<GifByteType>?
                try check(DGifGetExtension(gif, &code, &block), gif)
                if code == GRAPHICS_EXT_FUNC_CODE, let block, block[0] >= 4 {
                    control.disposal = Int((block[1] >> 2) & 0x07)
                    control.transparentIndex = block[1] & 1 != 0 ? Int(block[4]) : -1
                }
                while block != nil { try check(DGifGetExtensionNext(gif, &block), gif) }
            case IMAGE_DESC_RECORD_TYPE:
                try check(DGifGetImageDesc(gif), gif)
                guard gif.pointee.Image.Width > 0, gif.pointee.Image.Height > 0 else {
                    throw .corrupt(reason: "GIF frame of zero size")
                }
                return control
            default:
                return nil
            }
        }
    }

    /// The current image's 256 colours as RGBA words (bytes R, G, B, A in memory order): its own
    /// table, else the screen's, else a gray ramp; `transparentIndex` fully transparent.
    static func palette(_ gif: UnsafeMutablePointer<GifFileType>, transparentIndex: Int) -> [UInt32] {
        let table = (gif.pointee.Image.ColorMap ?? gif.pointee.SColorMap).map { colorMap in
            (0..<Int(min(max(colorMap.pointee.ColorCount, 0), 256))).flatMap { index in
                let color = colorMap.pointee.Colors[index]
                return [color.Red, color.Green, color.Blue]
            }
        }
        return palette(colorTable: table, transparentIndex: transparentIndex)
    }

    /// 256 colours as RGBA words from a colour table as a GIF stores it (3 bytes an entry; nil: a
    /// gray ramp), `transparentIndex` fully transparent.
    static func palette(colorTable: [UInt8]?, transparentIndex: Int) -> [UInt32] {
        func word(_ red: UInt8, _ green: UInt8, _ blue: UInt8) -> UInt32 {
            (UInt32(red) | UInt32(green) << 8 | UInt32(blue) << 16 | 0xFF00_0000).littleEndian
        }
        var palette = (0..<256).map { word(UInt8($0), UInt8($0), UInt8($0)) }
        if let colorTable {
            for index in 0..<min(colorTable.count / 3, 256) {
                palette[index] = word(colorTable[index * 3], colorTable[index * 3 + 1], colorTable[index * 3 + 2])
            }
        }
        if (0..<256).contains(transparentIndex) { palette[transparentIndex] = 0 }
        return palette
    }

    static func check(_ status: Int32, _ gif: UnsafeMutablePointer<GifFileType>) throws(ImageDecodingError) {
        if status == GIF_ERROR { throw failure(of: gif) }
    }

    /// The failure giflib reports for `gif`; a read that failed because a ranged source's transfer
    /// did is that failure, not truncation.
    static func failure(of gif: UnsafeMutablePointer<GifFileType>) -> ImageDecodingError {
        if gif.pointee.Error == D_GIF_ERR_READ_FAILED, let input = gif.pointee.UserData,
            let failure = Unmanaged<GIFInput>.fromOpaque(input).takeUnretainedValue().readFailure
        {
            return failure
        }
        return failure(gif.pointee.Error)
    }

    static func failure(_ code: Int32) -> ImageDecodingError {
        let message = GifErrorString(code).map { String(cString: $0) } ?? "giflib error \(code)"
        return code == D_GIF_ERR_READ_FAILED ? .truncated(reason: message) : .corrupt(reason: message)
    }
}
