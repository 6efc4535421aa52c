import CTesseraTIFF
import TesseraCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An open TIFF (one directory, the first unless asked) whose libtiff messages are captured rather than printed, its
/// strips or tiles checked against the image size, the file's length and the decode's limits before
/// any of them is read. libtiff is loaded on first use; without it TIFF fails with
/// `.libraryUnavailable`.
final class TIFFFile {
    /// libtiff's functions, for the readers of this file.
    let library: TesseraTIFF
    private let handle: CHandle<OpaquePointer>
    private let messagesHandle: CHandle<UnsafeMutablePointer<TesseraTIFFMessages>>
    var tiff: OpaquePointer { handle.pointer }
    private var messages: UnsafeMutablePointer<TesseraTIFFMessages> { messagesHandle.pointer }
    private let input: LibraryInput?  // keeps in-memory bytes alive for libtiff
    /// The file's path, kept out of every error libtiff reports (it names the file in many).
    private let path: String?

    let size: PixelSize
    /// How the samples are stored and become pixels.
    let samples: TIFFSamples
    let orientation: Orientation
    let isTiled: Bool
    let compression: Int
    /// The pixels one strip or tile covers: the full width by the rows per strip (at most the
    /// height), or one tile (which may reach past the image's edges).
    let pieceSize: PixelSize
    /// The file's pages (``pageDirectories(_:_:through:)``) when opened by page and counting them;
    /// opened by page without counting, the pages up to the one opened; else 0.
    var pageCount: Int { pageSizes.count }
    /// Each page's size upright (its orientation applied), as far as ``pageCount`` goes.
    private(set) var pageSizes: [PixelSize] = []

    /// The most directories walked to find the pages: more is a hostile chain, not a document.
    static let maximumDirectoryCount = Int(UInt16.max)

    /// The directories that are pages, in order: every image but the reduced-resolution ones
    /// (NewSubfileType bit 0), transparency masks (bit 2), and the levels of a pyramid written
    /// without that flag (tiled like the image before, a whole factor smaller, as `TIFFPyramid`
    /// reads them), with each one's size upright. At least the first directory; leaves libtiff at
    /// an arbitrary one.
    ///
    /// - Parameter lastPage: stop once this page (from 0) is found: a decode of page 1 of a
    ///   2,000-page scan then reads one directory, not 2,000. Nil: every page.
    private static func pageDirectories(
        _ library: TesseraTIFF, _ tiff: OpaquePointer, through lastPage: Int? = nil
    ) -> [(directory: Int, size: PixelSize)] {
        struct Shape: Equatable {
            var size = PixelSize(width: 0, height: 0), tile = PixelSize(width: 0, height: 0), isTiled = false
        }
        func uprightSize(_ size: PixelSize) -> PixelSize {
            var orientation: UInt16 = 1
            _ = tessera_tiff_get_uint16(tiff, UInt32(TIFFTAG_ORIENTATION), &orientation)
            return (Orientation(rawValue: Int(orientation)) ?? .up).swapsDimensions
                ? PixelSize(width: size.height, height: size.width) : size
        }
        func shape() -> Shape {
            var width: UInt32 = 0, height: UInt32 = 0, tileWidth: UInt32 = 0, tileHeight: UInt32 = 0
            _ = tessera_tiff_get_uint32(tiff, UInt32(TIFFTAG_IMAGEWIDTH), &width)
            _ = tessera_tiff_get_uint32(tiff, UInt32(TIFFTAG_IMAGELENGTH), &height)
            let isTiled = library.TIFFIsTiled(tiff) != 0
            if isTiled {
                _ = tessera_tiff_get_uint32(tiff, UInt32(TIFFTAG_TILEWIDTH), &tileWidth)
                _ = tessera_tiff_get_uint32(tiff, UInt32(TIFFTAG_TILELENGTH), &tileHeight)
            }
            return Shape(
                size: PixelSize(width: Int(width), height: Int(height)), tile: PixelSize(width: Int(tileWidth), height: Int(tileHeight)),
                isTiled: isTiled)
        }
        guard library.TIFFSetDirectory(tiff, 0) != 0 else { return [(0, PixelSize(width: 0, height: 0))] }
        var pages: [(directory: Int, size: PixelSize)] = []
        var previous: Shape?
        var directory = 0
        repeat {
            var kind: UInt32 = 0
            _ = tessera_tiff_get_uint32(tiff, UInt32(TIFFTAG_SUBFILETYPE), &kind)
            let current = shape()
            let isLevel =
                previous.map {
                    current.isTiled && $0.isTiled && current.tile == $0.tile && TIFFPyramid.step(current.size, below: $0.size) != nil
                } ?? false
            if kind & UInt32(FILETYPE_REDUCEDIMAGE | FILETYPE_MASK) == 0, !isLevel {
                pages.append((directory, uprightSize(current.size)))
            }
            if let lastPage, pages.count > lastPage { break }
            previous = current
            directory += 1
        } while directory < maximumDirectoryCount && library.TIFFReadDirectory(tiff) == 1
        if pages.isEmpty {
            guard library.TIFFSetDirectory(tiff, 0) != 0 else { return [(0, PixelSize(width: 0, height: 0))] }
            return [(0, uprightSize(shape().size))]
        }
        return pages
    }

    /// - Parameters:
    ///   - fileByteCount: the length of the file (or in-memory data) in bytes, which every strip
    ///     and tile must lie within.
    ///   - limits: what one strip, tile or band of rows may take; libtiff's own allocations are held
    ///     to the same byte limit.
    ///   - image: which image of the file: a directory of the main chain (pages and reduced
    ///     levels), or a SubIFD.
    ///   - page: which page, from 0 (``pageDirectories(_:_:through:)``), instead of `image`; nil:
    ///     not asked, and ``pageCount`` is left at 0.
    ///   - countsPages: walk every directory to count the pages (a probe); else stop at `page`.
    ///   - layoutCheck: how the strips or tiles are checked before any is read.
    init(
        _ source: ImageSource, fileByteCount: Int, limits: AllocationLimits, image: TIFFImageAddress = .directory(0), page: Int? = nil,
        countsPages: Bool = false, layoutCheck: LayoutCheck = .everyPiece
    ) throws(ImageDecodingError) {
        let library = try Libraries.tiff.get()
        self.library = library
        messagesHandle = .allocate(TesseraTIFFMessages()) { _ in }
        let messages = messagesHandle.pointer
        path = source.filePath
        var opened: OpaquePointer?
        if let path = source.filePath {
            input = nil
            opened = tessera_tiff_open_file(path, Int64(limits.maximumByteCount), messages)
        } else {
            let input = try LibraryInput(source, inMemory: true)
            self.input = input
            opened = input.withBytes { tessera_tiff_open_memory($0, $1, Int64(limits.maximumByteCount), messages) }
        }
        guard let opened else { throw Self.failure(messages, path: source.filePath) }
        handle = CHandle(opened) { library.TIFFClose($0) }
        pageSizes = try Self.select(image, page: page, countsPages: countsPages, library, opened)
        func field32(_ tag: Int32) -> Int {
            var value: UInt32 = 0
            return tessera_tiff_get_uint32(opened, UInt32(tag), &value) != 0 ? Int(value) : 0
        }
        func field16(_ tag: Int32, default fallback: Int = 0) -> Int {
            var value: UInt16 = 0
            return tessera_tiff_get_uint16(opened, UInt32(tag), &value) != 0 ? Int(value) : fallback
        }
        size = PixelSize(width: field32(TIFFTAG_IMAGEWIDTH), height: field32(TIFFTAG_IMAGELENGTH))
        let bitsPerSample = field16(TIFFTAG_BITSPERSAMPLE, default: 1), photometric = field16(TIFFTAG_PHOTOMETRIC, default: -1)
        orientation = Orientation(rawValue: field16(TIFFTAG_ORIENTATION, default: 1)) ?? .up
        compression = field16(TIFFTAG_COMPRESSION, default: Int(COMPRESSION_NONE))
        // libjpeg (and so libtiff's JPEG codec) reads 8-bit JPEG only: deeper samples cannot be in one.
        if compression == Int(COMPRESSION_JPEG) || compression == Int(COMPRESSION_OJPEG), bitsPerSample != 8 {
            throw .unsupported(reason: "a JPEG-compressed TIFF with \(bitsPerSample)-bit samples: JPEG in TIFF is read at 8 bits only")
        }
        // Before any size is asked: libtiff sizes YCbCr strips and tiles by their subsampling.
        let decodesJPEGAsRGB =
            compression == Int(COMPRESSION_JPEG) && photometric == Int(PHOTOMETRIC_YCBCR)
            && bitsPerSample == 8 && tessera_tiff_decode_jpeg_as_rgb(opened) != 0
        samples = TIFFSamples(opened, decodesJPEGAsRGB: decodesJPEGAsRGB)
        isTiled = library.TIFFIsTiled(opened) != 0
        guard size.width > 0, size.height > 0 else { throw .corrupt(reason: "TIFF without an image size") }
        if isTiled {
            pieceSize = PixelSize(width: field32(TIFFTAG_TILEWIDTH), height: field32(TIFFTAG_TILELENGTH))
            guard pieceSize.width > 0, pieceSize.height > 0 else { throw .corrupt(reason: "TIFF tiles of \(pieceSize)") }
        } else {
            // Without the tag libtiff answers 2³² − 1: the whole image in one strip.
            let rowsPerStrip = field32(TIFFTAG_ROWSPERSTRIP)
            guard rowsPerStrip > 0 else { throw .corrupt(reason: "TIFF with 0 rows per strip") }
            pieceSize = PixelSize(width: size.width, height: min(rowsPerStrip, size.height))
        }
        if layoutCheck != .none, !samples.readsNatively {
            // The converter's own verdict, from the tags alone, so a probe refuses what a decode would.
            var message = [CChar](repeating: 0, count: 1024)
            guard library.TIFFRGBAImageOK(opened, &message) != 0 else {
                throw .unsupported(reason: String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
        }
        if layoutCheck != .none {
            try checkLayout(fileByteCount: fileByteCount, limits: limits, missingAllowed: layoutCheck == .missingPiecesAllowed)
        }
    }

    /// This image's SubIFDs (tag 330), at most `limit` of them, in order.
    func subdirectories(limit: Int) -> [TIFFImageAddress] {
        var count: UInt16 = 0
        var offsets: UnsafePointer<UInt64>?
        guard tessera_tiff_get_subifds(tiff, &count, &offsets) != 0, let offsets else { return [] }
        return (0..<min(Int(count), limit)).map { .subdirectory(offset: offsets[$0]) }
    }

    /// Sets libtiff's handle to `image`, or to page `page` when one is asked; returns the pages'
    /// sizes found on the way (``pageDirectories(_:_:through:)``: every page's when `countsPages`).
    private static func select(
        _ image: TIFFImageAddress, page: Int?, countsPages: Bool, _ library: TesseraTIFF, _ tiff: OpaquePointer
    ) throws(ImageDecodingError) -> [PixelSize] {
        var image = image, pageSizes: [PixelSize] = []
        if let page {
            let pages = pageDirectories(library, tiff, through: countsPages ? nil : page)
            guard page >= 0, page < pages.count else {
                // Not found: the walk reached the end, so it counted every page.
                throw .noSuchPage(index: page, count: pages.count)
            }
            image = .directory(pages[page].directory)
            pageSizes = pages.map(\.size)
        }
        switch image {
        case .directory(let directory) where directory > 0 || page != nil:
            guard directory <= Int(UInt16.max), library.TIFFSetDirectory(tiff, UInt32(directory)) != 0 else {
                throw .corrupt(reason: "the TIFF has no image \(directory)")
            }
        case .subdirectory(let offset):
            guard library.TIFFSetSubDirectory(tiff, offset) != 0 else { throw .corrupt(reason: "the TIFF has no image at byte \(offset)") }
        case .directory: break
        }
        return pageSizes
    }

    /// How a file's strips or tiles are checked when it is opened (``checkLayout(fileByteCount:limits:missingAllowed:)``).
    enum LayoutCheck {
        /// Every one present, inside the file and long enough for its pixels.
        case everyPiece
        /// The same, but a tile of length 0 is a missing one (a slide's scanner skipped it), read as background.
        case missingPiecesAllowed
        /// None: the directory's tags are read, never its pixels.
        case none
    }

    /// The length of the file at `path`, in bytes.
    static func fileByteCount(_ path: String) throws(ImageDecodingError) -> Int {
        var info = stat()
        guard stat(path, &info) == 0 else { throw errno == ENOENT ? .notFound : .unreadable(reason: String(cString: strerror(errno))) }
        return Int(info.st_size)
    }

    /// Checks libtiff's size for one strip or tile against what its pixels can need and the limits,
    /// a band of rows as wide as the image against the limits, and every strip or tile against the
    /// file: present, inside it, and long enough to decode to its pixels.
    private func checkLayout(fileByteCount: Int, limits: AllocationLimits, missingAllowed: Bool) throws(ImageDecodingError) {
        let piece = isTiled ? "tile" : "strip", bitsPerSample = samples.bitsPerSample
        let samplesPerPlane = samples.planarConfiguration == Int(PLANARCONFIG_SEPARATE) ? 1 : samples.samplesPerPixel
        let bytesPerPixel = max(1, (samplesPerPlane * bitsPerSample + 7) / 8)
        // A strip read row by row is never held whole, so only its consistency is checked; what is
        // held is one row as stored.
        let held = readsByScanline ? AllocationLimits.unlimited : limits
        let mostPieceBytes = try held.byteCount(width: pieceSize.width, rows: pieceSize.height, bytesPerPixel: bytesPerPixel)
        let pieceBytes = Int(clamping: isTiled ? library.TIFFTileSize64(tiff) : library.TIFFStripSize64(tiff))
        guard pieceBytes > 0, pieceBytes <= mostPieceBytes else {
            throw .corrupt(
                reason: "libtiff sizes a \(piece) of \(pieceSize) pixels at \(pieceBytes) bytes; "
                    + "\(samplesPerPlane) samples of \(bitsPerSample) bits need at most \(mostPieceBytes)")
        }
        if readsByScanline {
            let mostRowBytes = try limits.byteCount(width: size.width, rows: 1, bytesPerPixel: bytesPerPixel)
            let rowBytes = Int(clamping: library.TIFFScanlineSize64(tiff))
            guard rowBytes > 0, rowBytes <= mostRowBytes else {
                throw .corrupt(
                    reason: "libtiff sizes a row of \(size.width) pixels at \(rowBytes) bytes; "
                        + "\(samplesPerPlane) samples of \(bitsPerSample) bits need at most \(mostRowBytes)")
            }
        }
        // A band of rows the width of the image, as the widest a reader holds it: 4-byte RGBA words.
        _ = try limits.byteCount(width: size.width, rows: bandHeight, bytesPerPixel: 4)
        let count = Int(isTiled ? library.TIFFNumberOfTiles(tiff) : library.TIFFNumberOfStrips(tiff))
        let stripsPerPlane = (size.height + pieceSize.height - 1) / pieceSize.height
        let bound = Self.expansionBound(compression: compression)
        let fileEnd = UInt64(fileByteCount)
        for index in 0..<count {
            let needed: Int
            if isTiled {
                needed = pieceBytes
            } else {
                let firstRow = index % stripsPerPlane * pieceSize.height
                needed = Int(clamping: library.TIFFVStripSize64(tiff, UInt32(min(pieceSize.height, size.height - firstRow))))
            }
            let offset = library.TIFFGetStrileOffset(tiff, UInt32(index))
            let byteCount = library.TIFFGetStrileByteCount(tiff, UInt32(index))
            if byteCount == 0, missingAllowed, isTiled { continue }
            guard byteCount > 0 else { throw .corrupt(reason: "TIFF \(piece) \(index) has no data") }
            if let bound, !bound.allows(decodedCount: needed, from: Int(clamping: byteCount)) {
                throw .corrupt(
                    reason: "TIFF \(piece) \(index) holds \(byteCount) bytes, "
                        + "too few to decode to the \(needed) bytes its pixels take")
            }
            // Uncompressed pieces are read only as far as their pixels; compressed ones whole.
            let read = compression == Int(COMPRESSION_NONE) ? UInt64(needed) : byteCount
            guard offset <= fileEnd, read <= fileEnd - offset else {
                throw .truncated(reason: "TIFF \(piece) \(index) ends past the end of the file")
            }
        }
    }

    /// How far the compressions with a known bound can expand; nil for the others (JPEG, CCITT,
    /// LZMA, ...), whose strips are then held to the limits alone.
    private static func expansionBound(compression: Int) -> ExpansionBound? {
        switch Int32(compression) {
        case COMPRESSION_NONE: .uncompressed
        case COMPRESSION_PACKBITS: .packBits
        case COMPRESSION_LZW: .tiffLZW
        case COMPRESSION_ADOBE_DEFLATE, COMPRESSION_DEFLATE: .deflate
        case COMPRESSION_ZSTD: .zstandard
        default: nil
        }
    }

    /// Strips of more rows than this that are read natively are read a row at a time
    /// (`TIFFReadScanline`, which inflates as far as each row), ``scanlineBandHeight`` rows to a
    /// band: a file written as one strip, common from scanners and simple writers, would otherwise
    /// be held whole, and a 97 KB deflate strip can claim 100 MB.
    static let tallestStripReadWhole = 64
    static let scanlineBandHeight = 16

    /// Whether strips are read row by row rather than whole (see ``tallestStripReadWhole``).
    var readsByScanline: Bool { !isTiled && samples.readsNatively && pieceSize.height > Self.tallestStripReadWhole }

    /// The rows a reader holds at once: one strip or row of tiles, or ``scanlineBandHeight`` rows of
    /// a strip read row by row.
    var bandHeight: Int { readsByScanline ? Self.scanlineBandHeight : pieceSize.height }

    func properties(fileByteCount: Int) -> ImageProperties {
        var properties = ImageProperties(
            format: .tiff, size: size, orientation: orientation, hasAlpha: samples.hasAlpha, bitsPerComponent: samples.bitsPerSample,
            colorModel: samples.colorModel, frameCount: max(1, Int(library.TIFFNumberOfDirectories(tiff))), isProgressive: false,
            fileByteCount: fileByteCount, decodedFormat: samples.decodedFormat)
        properties.pageCount = max(1, pageCount)
        var length: UInt32 = 0
        var bytes: UnsafeRawPointer?
        // Lab samples are converted to sRGB as they are read: a profile (Pillow writes a Lab
        // identity one) describes the stored samples, not the decoded pixels.
        if !samples.convertsLab, tessera_tiff_get_bytes(tiff, UInt32(TIFFTAG_ICCPROFILE), &length, &bytes) != 0, let bytes {
            // Longer than any profile accepted: an empty one, which validation reports.
            let accepted = Int(length) <= ICCProfile.maximumByteCount
            properties.attachProfile(accepted ? Array(UnsafeRawBufferPointer(start: bytes, count: Int(length))) : [])
        }
        return properties
    }

    /// The first error libtiff reported, as a typed error.
    func failure() -> ImageDecodingError { Self.failure(messages, path: path) }

    /// The error libtiff reported, with the file's path taken out: "PATH: Seek error…" becomes
    /// "Seek error…" (errors reach server bodies and logs, which must never show a path).
    private static func failure(_ messages: UnsafeMutablePointer<TesseraTIFFMessages>, path: String?) -> ImageDecodingError {
        var message = cMessage(messages.pointee.error)
        if let path, !path.isEmpty {
            message = message.replacing(path + ": ", with: "").replacing(path, with: "the file")
        }
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
