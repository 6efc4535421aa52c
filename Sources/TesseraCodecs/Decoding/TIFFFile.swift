import CTesseraTIFF
import TesseraCore

/// An open TIFF (first directory) whose libtiff messages are captured rather than printed.
/// libtiff is loaded on first use; without it TIFF fails with `.unsupported`.
final class TIFFFile {
    /// libtiff's functions, for the readers of this file.
    let library: TesseraTIFF
    private let handle: CHandle<OpaquePointer>
    private let messagesHandle: CHandle<UnsafeMutablePointer<TesseraTIFFMessages>>
    var tiff: OpaquePointer { handle.pointer }
    private var messages: UnsafeMutablePointer<TesseraTIFFMessages> { messagesHandle.pointer }
    private let input: LibraryInput?  // keeps in-memory bytes alive for libtiff

    let size: PixelSize
    let bitsPerSample: Int
    let samplesPerPixel: Int
    let photometric: Int
    let planarConfiguration: Int
    let extraSampleCount: Int
    let orientation: Orientation
    let isTiled: Bool
    let compression: Int

    init(_ source: ImageSource) throws(ImageDecodingError) {
        let library = try LibTIFF.table()
        self.library = library
        messagesHandle = .allocate(TesseraTIFFMessages()) { _ in }
        let messages = messagesHandle.pointer
        var opened: OpaquePointer?
        if let path = source.filePath {
            input = nil
            opened = tessera_tiff_open_file(path, messages)
        } else {
            let input = try LibraryInput(source)
            self.input = input
            opened = input.withBytes { tessera_tiff_open_memory($0, $1, messages) }
        }
        guard let opened else { throw Self.failure(messages) }
        handle = CHandle(opened) { library.TIFFClose($0) }
        func field32(_ tag: Int32) -> Int {
            var value: UInt32 = 0
            return tessera_tiff_get_uint32(opened, UInt32(tag), &value) != 0 ? Int(value) : 0
        }
        func field16(_ tag: Int32, default fallback: Int = 0) -> Int {
            var value: UInt16 = 0
            return tessera_tiff_get_uint16(opened, UInt32(tag), &value) != 0 ? Int(value) : fallback
        }
        size = PixelSize(width: field32(TIFFTAG_IMAGEWIDTH), height: field32(TIFFTAG_IMAGELENGTH))
        bitsPerSample = field16(TIFFTAG_BITSPERSAMPLE, default: 1)
        samplesPerPixel = field16(TIFFTAG_SAMPLESPERPIXEL, default: 1)
        photometric = field16(TIFFTAG_PHOTOMETRIC, default: -1)
        planarConfiguration = field16(TIFFTAG_PLANARCONFIG, default: Int(PLANARCONFIG_CONTIG))
        orientation = Orientation(rawValue: field16(TIFFTAG_ORIENTATION, default: 1)) ?? .up
        compression = field16(TIFFTAG_COMPRESSION, default: Int(COMPRESSION_NONE))
        var extraCount: UInt16 = 0
        var firstExtra: UInt16 = 0
        _ = tessera_tiff_get_extra_samples(opened, &extraCount, &firstExtra)
        extraSampleCount = Int(extraCount)
        isTiled = library.TIFFIsTiled(opened) != 0
        guard size.width > 0, size.height > 0 else { throw .corrupt(reason: "TIFF without an image size") }
    }

    var colorModel: ColorModel {
        switch Int32(photometric) {
        case PHOTOMETRIC_MINISBLACK, PHOTOMETRIC_MINISWHITE: .gray
        case PHOTOMETRIC_PALETTE: .palette
        case PHOTOMETRIC_SEPARATED: .cmyk
        default: .rgb
        }
    }

    var hasAlpha: Bool { extraSampleCount > 0 }

    var decodedFormat: PixelFormat {
        (colorModel == .gray ? PixelFormat.gray8 : .rgb8).withAlpha(hasAlpha)
    }

    func properties(fileByteCount: Int) -> ImageProperties {
        ImageProperties(
            format: .tiff, size: size, orientation: orientation, hasAlpha: hasAlpha, bitsPerComponent: bitsPerSample,
            colorModel: colorModel, frameCount: max(1, Int(library.TIFFNumberOfDirectories(tiff))), isProgressive: false,
            fileByteCount: fileByteCount, decodedFormat: decodedFormat)
    }

    /// The first error libtiff reported, as a typed error.
    func failure() -> ImageDecodingError { Self.failure(messages) }

    private static func failure(_ messages: UnsafeMutablePointer<TesseraTIFFMessages>) -> ImageDecodingError {
        let message = cMessage(messages.pointee.error)
        let text = message.isEmpty ? "libtiff could not read the file" : message
        let lowered = text.lowercased()
        if lowered.contains("read error") || lowered.contains("eof") || lowered.contains("cannot read")
            || lowered.contains("seek error")
        {
            return .truncated(reason: text)
        }
        return .corrupt(reason: text)
    }
}
