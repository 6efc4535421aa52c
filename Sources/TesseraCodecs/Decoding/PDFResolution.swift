import FoundationEssentials
import TesseraCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How many pixels a PDF page is rendered with: the resolution of the images it holds (a scanned
/// page's scan), within ``DecodeOptions/pdfMinimumDPI`` and ``DecodeOptions/pdfMaximumDPI`` and
/// the decode pixel limit, so a scanned book is offered as sharp as its scans.
///
/// An image's resolution is its pixels over the points it is drawn on. Where it is drawn comes from
/// poppler (`poppler_page_get_image_mapping`, which runs the page's content without decoding any
/// image); its pixels from the dictionaries of the file's image XObjects (`/Width`, `/Height`),
/// read from the bytes, because poppler-glib gives an image's pixels only by decoding it whole
/// (`poppler_page_get_image`, an ARGB surface of the image's full size, however large the file
/// says it is). A stream object is never inside an object stream, so every image XObject's
/// dictionary is in the file as written. Which of them a page draws is not known without parsing
/// the page's resources: a placement takes the largest image whose shape is its own (the same
/// pixels per point across and down, turned or not). So a page can be drawn finer than its own
/// image when the document holds a larger one of the same shape, never beyond the maximum dpi.
/// Inline images (in the content stream, small by the specification's advice) do not count.
struct PDFResolution {
    /// Pixels per point at least (a page without images), and at most an image raises it to.
    let minimumScale: Double
    let maximumScale: Double
    /// The most pixels a page may have; the scale gives way to it, down to 1 pixel per point.
    let pixelLimit: Int

    /// At most this many image sizes are kept from a file, and this many placements looked at
    /// on a page (the largest), so that matching them costs at most their product.
    static let imageSizeLimit = 1024
    static let placementLimit = 64
    /// At most this many `/Image` names are looked at (each reads at most 8 KiB around it), so a
    /// file made of them costs at most about 256 MB of reading, whatever its length; a finer image
    /// past them goes unseen, and its page is drawn at a coarser one's resolution.
    static let candidateLimit = 32768

    init(_ options: DecodeOptions) {
        // Never below one pixel per point: a smaller page would lose what 72 dpi shows.
        let minimum = options.pdfMinimumDPI.isFinite ? max(1, options.pdfMinimumDPI / 72) : 1
        minimumScale = minimum
        maximumScale = options.pdfMaximumDPI.isFinite ? max(minimum, options.pdfMaximumDPI / 72) : minimum
        pixelLimit = options.maximumPixelCount
    }

    /// The pixels of a page of `pageSize` points whose images are drawn on `placements` (each
    /// the size in points of an image's bounding box) and whose file holds images of `images`
    /// (called only when there is a placement).
    func size(of pageSize: PointSize, placements: [PointSize], images: () -> [PixelSize]) -> PixelSize {
        let fromImages = placements.isEmpty ? nil : Self.imageScale(placements: placements, images: images())
        var scale = min(max(fromImages ?? minimumScale, minimumScale), maximumScale)
        let area = pageSize.width * pageSize.height
        var limited = false
        if area * scale * scale > Double(pixelLimit), scale > 1 {
            scale = max(1, (Double(pixelLimit) / area).squareRoot())
            limited = scale > 1
        }
        // At one pixel per point, the size in points rounded up, as it always was. Otherwise a
        // hair less than that, so an image's pixels that fill the page are the page's pixels; and
        // within the pixel limit, rounded down.
        func side(_ points: Double) -> Int {
            if scale == 1 { return Int(points.rounded(.up)) }
            return max(1, Int(limited ? (points * scale).rounded(.down) : (points * scale - 1e-6).rounded(.up)))
        }
        return PixelSize(width: side(pageSize.width), height: side(pageSize.height))
    }

    /// The most pixels per point of any image a placement can be: nil when none matches.
    static func imageScale(placements: [PointSize], images: [PixelSize]) -> Double? {
        var best: Double?
        let largest = placements.filter { $0.width >= 1 && $0.height >= 1 }
            .sorted { $0.width * $0.height > $1.width * $1.height }.prefix(placementLimit)
        for placement in largest {
            for image in images {
                for (across, down) in [(placement.width, placement.height), (placement.height, placement.width)] {
                    let x = Double(image.width) / across, y = Double(image.height) / down
                    // Square pixels, to 2 %: a scan is drawn so (a stretched image's sides disagree).
                    guard abs(x - y) <= 0.02 * max(x, y) else { continue }
                    best = max(best ?? 0, max(x, y))
                }
            }
        }
        return best
    }

    /// The image sizes of the last files scanned, by path, length and modification time: every
    /// probe and render of a page opens the document afresh, and a scanned book's scan reads up to
    /// 256 MB, so it is made once per file version rather than once per request.
    private static let scanned = Locked(LRUCache<String, [PixelSize]>(costLimit: 64))

    /// ``imageSizes(in:)`` of `data`, the document read from `file` (kept by the file's version;
    /// scanned every time when nil: a document in memory has no version to keep it by).
    static func imageSizes(of data: Data, file: String?) -> [PixelSize] {
        var status = stat()
        guard let file, stat(file, &status) == 0, Int(status.st_size) == data.count else {
            return data.withUnsafeBytes { imageSizes(in: $0) }
        }
        let key = "\(file)|\(status.st_size)|\(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec)"
        if let known = scanned.withLock({ $0.value(for: key) }) { return known }
        let sizes = data.withUnsafeBytes { imageSizes(in: $0) }
        scanned.withLock { _ = $0.insert(sizes, for: key, cost: 1) }
        return sizes
    }

    /// The distinct sizes of the image XObjects `bytes` holds (at most ``imageSizeLimit``): the
    /// direct `/Width` and `/Height` of every object whose dictionary says `/Subtype /Image`.
    /// One pass over the bytes; nothing is decoded.
    static func imageSizes(in bytes: UnsafeRawBufferPointer) -> [PixelSize] {
        var sizes = Set<PixelSize>()
        var offset = 0, candidates = 0
        while sizes.count < imageSizeLimit, candidates < candidateLimit,
            let at = firstRange(of: "/Image", in: bytes, from: offset, to: bytes.count)
        {
            offset = at + 6
            candidates += 1
            if let size = imageSize(around: at, in: bytes) { sizes.insert(size) }
        }
        return Array(sizes)
    }

    /// The size of the image object whose `/Image` name is at `at`: read between the object's
    /// start (`obj`, at most 4 KiB before) and its stream (at most 4 KiB after), when it is a
    /// `/Subtype` with direct, positive `/Width` and `/Height` of at most 2^20.
    private static func imageSize(around at: Int, in bytes: UnsafeRawBufferPointer) -> PixelSize? {
        // The name must end here (not /ImageB, /ImageMask) and be the value of /Subtype.
        if at + 6 < bytes.count, !isDelimiter(bytes[at + 6]) { return nil }
        var before = at - 1
        while before >= 0, isWhitespace(bytes[before]) { before -= 1 }
        guard before >= 7, Array(bytes[(before - 7)...before]) == Array("/Subtype".utf8) else { return nil }
        let start = lastRange(of: "obj", in: bytes, from: max(0, at - 4096), to: at) ?? max(0, at - 4096)
        let end = firstRange(of: "stream", in: bytes, from: at, to: min(bytes.count, at + 4096)) ?? min(bytes.count, at + 4096)
        guard let width = integer(after: "/Width", in: bytes, from: start, to: end),
            let height = integer(after: "/Height", in: bytes, from: start, to: end)
        else { return nil }
        return PixelSize(width: width, height: height)
    }

    /// The positive integer after the name `key` (a direct value, not `N G R`), at most 2^20.
    private static func integer(after key: String, in bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Int? {
        guard var index = firstRange(of: key, in: bytes, from: start, to: end) else { return nil }
        index += key.utf8.count
        guard index < end, isDelimiter(bytes[index]) else { return nil }
        while index < end, isWhitespace(bytes[index]) { index += 1 }
        var value = 0, digits = 0
        while index < end, (0x30...0x39).contains(bytes[index]), digits < 8 {
            value = value * 10 + Int(bytes[index] - 0x30)
            index += 1
            digits += 1
        }
        guard digits > 0, value > 0, value <= 1 << 20, index < end, isDelimiter(bytes[index]) else { return nil }
        // An indirect reference (`12 0 R`) names another object: its value is not read.
        var next = index
        while next < end, isWhitespace(bytes[next]) { next += 1 }
        while next < end, (0x30...0x39).contains(bytes[next]) { next += 1 }
        while next < end, isWhitespace(bytes[next]) { next += 1 }
        if next > index, next < end, bytes[next] == UInt8(ascii: "R") { return nil }
        return value
    }

    private static func firstRange(of text: String, in bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Int? {
        let needle = Array(text.utf8)
        guard let base = bytes.baseAddress, let first = needle.first else { return nil }
        var from = max(0, start)
        // memchr finds each candidate's first byte (memmem is a GNU extension Glibc's module lacks).
        while end - from >= needle.count, let found = memchr(base + from, Int32(first), end - from - needle.count + 1) {
            let at = base.distance(to: UnsafeRawPointer(found))
            if memcmp(found, needle, needle.count) == 0 { return at }
            from = at + 1
        }
        return nil
    }

    private static func lastRange(of text: String, in bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Int? {
        var last: Int?
        var from = start
        while let found = firstRange(of: text, in: bytes, from: from, to: end) {
            last = found
            from = found + 1
        }
        return last
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool { [0, 9, 10, 12, 13, 32].contains(byte) }

    private static func isDelimiter(_ byte: UInt8) -> Bool { isWhitespace(byte) || Array("()<>[]{}/%".utf8).contains(byte) }
}
