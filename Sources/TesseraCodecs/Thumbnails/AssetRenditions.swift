public import FoundationEssentials
public import TesseraCore

/// The 1x, 2x and 3x bitmaps of one image in an Xcode asset catalog: for each scale, its size in
/// pixels and its file name, checked before any pixel is decoded.
///
/// Two units meet here. The image is laid out in **points** (``pointSize``); each rendition is
/// ``pointSize`` × its scale in **pixels** (``Rendition/pixelSize``), the size the bitmap is
/// written at, exactly. A 60×40-point image gives `NAME.png` at 60×40 pixels, `NAME@2x.png` at
/// 120×80 and `NAME@3x.png` at 180×120. A fractional product rounds up
/// (`PointSize.pixels(at:)`), so the bitmap never falls short of the screen.
///
/// A vector source (SVG, PDF) is drawn at each rendition's size. A bitmap source is only ever
/// shrunk, unless ``init(name:pointSize:scales:source:framing:allowsUpscaling:maximumPixelCount:)``
/// is told `allowsUpscaling`: a bitmap smaller than a rendition needs is refused with
/// ``AssetRenditionError/wouldUpscale(scale:source:rendition:factor:)``, since enlarging it blurs
/// it on exactly the screens the larger renditions are for.
///
/// ```swift
/// let source = ImageSource.file("logo.svg")
/// let plan = try AssetRenditionPlan(
///     name: "Logo", pointSize: PointSize(width: 60, height: 40), source: try ImageDecoder().probe(source))
/// for rendition in plan.renditions {
///     let image = try plan.render(rendition, from: source)
///     try ImageEncoder.encode(image.pixels, as: .png(), iccProfile: image.iccProfile)
///         .write(to: URL(fileURLWithPath: "Logo.imageset/" + rendition.filename))
/// }
/// try plan.contents.encoded().write(to: URL(fileURLWithPath: "Logo.imageset/Contents.json"))
/// ```
public struct AssetRenditionPlan: Sendable, Hashable {
    /// How the source is placed when its aspect ratio differs from the rendition's. Either way the
    /// bitmap is exactly ``Rendition/pixelSize``.
    public enum Framing: String, Sendable, Hashable, Codable, CaseIterable {
        /// The whole source, aspect-fit and centred on a transparent canvas of the rendition's size
        /// (UIKit's `scaleAspectFit`, with the margins transparent). The default.
        case fit
        /// The source covers the rendition and the overflow is cut away evenly from both ends
        /// (`scaleAspectFill`, clipped).
        case centerCrop
    }

    /// One bitmap of the image set.
    public struct Rendition: Sendable, Hashable, Codable {
        /// Pixels per point: 1, 2 or 3.
        public var scale: DisplayScale
        /// The bitmap's size in pixels: the image's size in points × ``scale``, fractions rounded up.
        public var pixelSize: PixelSize
        /// The size in pixels the source is scaled to before it is placed: inside ``pixelSize``
        /// for ``Framing/fit`` (the rest is transparent), covering it for ``Framing/centerCrop``
        /// (the overflow is cut).
        public var contentSize: PixelSize
        /// `NAME.png` at 1x, `NAME@2x.png`, `NAME@3x.png`: the names Xcode gives them.
        public var filename: String
        /// True when a bitmap source is enlarged for this rendition (only with `allowsUpscaling`).
        /// Always false for vector sources, which are drawn at the size.
        public var isUpscaled: Bool

        /// The scale as `Contents.json` writes it: `1x`, `2x`, `3x`.
        public var scaleName: String { AssetRenditionPlan.scaleName(scale) }
    }

    /// The scales an asset catalog has a slot for.
    public static let catalogScales: [DisplayScale] = [.x1, .x2, .x3]

    /// The image set's name: the base of its file names (`NAME.png`, `NAME@2x.png`).
    public var name: String
    /// The image's size in points.
    public var pointSize: PointSize
    /// How the source is placed when its aspect ratio differs from ``pointSize``'s.
    public var framing: Framing
    /// The source's upright size in pixels (a PDF page's at 72 dpi).
    public var sourceSize: PixelSize
    /// True for SVG and PDF sources, which are drawn at each size and never refused.
    public var sourceIsVector: Bool
    /// One per scale asked for, smallest scale first.
    public var renditions: [Rendition]

    /// Plans the renditions of a source whose header is `source` (``ImageDecoder/probe(_:)``; for
    /// a PDF, of the page that will be rendered).
    ///
    /// - Parameters:
    ///   - name: The image set's name, the base of each file name: not empty, no `/`, no control
    ///     characters, not starting with `.`.
    ///   - pointSize: The image's size in points; both sides finite and greater than 0.
    ///   - scales: Any of 1, 2 and 3 (the scales an asset catalog has), each once, in any order.
    ///   - source: The source's header (``ImageDecoder/probe(_:)``): its upright size decides
    ///     whether a rendition would be enlarged.
    ///   - framing: How the source fills a rendition whose aspect differs: fit (the default) or
    ///     centre crop.
    ///   - allowsUpscaling: Whether a bitmap source may be enlarged for a rendition larger than it.
    ///   - maximumPixelCount: The most pixels one rendition may have.
    /// - Throws: ``AssetRenditionError/invalidArgument(_:)`` for a name, size or scale out of
    ///   range; ``AssetRenditionError/tooLarge(scale:rendition:limit:)`` for a rendition over
    ///   `maximumPixelCount`; ``AssetRenditionError/wouldUpscale(scale:source:rendition:factor:)``
    ///   for the first (smallest) rendition a bitmap source is too small for, unless
    ///   `allowsUpscaling`.
    public init(
        name: String, pointSize: PointSize, scales: [DisplayScale] = catalogScales, source: ImageProperties,
        framing: Framing = .fit, allowsUpscaling: Bool = false,
        maximumPixelCount: Int = DecodeOptions.defaultMaximumPixelCount
    ) throws(AssetRenditionError) {
        try Self.check(name: name)
        guard pointSize.width > 0, pointSize.height > 0, pointSize.width.isFinite, pointSize.height.isFinite else {
            throw .invalidArgument(InvalidArgumentError("point size", "must be finite and greater than 0 on both sides"))
        }
        guard !scales.isEmpty else { throw .invalidArgument(InvalidArgumentError("scales", "must name at least one of 1, 2, 3")) }
        for scale in scales where !Self.catalogScales.contains(scale) {
            throw .invalidArgument(InvalidArgumentError("scale \(Self.number(scale.value))", "is not one of 1, 2, 3"))
        }
        guard Set(scales).count == scales.count else {
            throw .invalidArgument(InvalidArgumentError("scales", "must name each scale once"))
        }
        self.name = name
        self.pointSize = pointSize
        self.framing = framing
        self.sourceSize = source.displaySize
        self.sourceIsVector = source.format.isVector
        var renditions: [Rendition] = []
        for scale in scales.sorted(by: { $0.value < $1.value }) {
            let limit = Double(min(PixelSize.maximumScaledSide, maximumPixelCount))
            guard pointSize.width * scale.value <= limit, pointSize.height * scale.value <= limit else {
                throw .tooLarge(scale: scale, rendition: nil, limit: maximumPixelCount)
            }
            let pixels = pointSize.pixels(at: scale)
            guard pixels.area <= maximumPixelCount else {
                throw .tooLarge(scale: scale, rendition: pixels, limit: maximumPixelCount)
            }
            let mode: ContentMode = framing == .fit ? .fit : .centerCrop
            let factor = mode.scaleFactor(for: sourceSize, in: pixels)
            let isUpscaled = factor > 1 && !sourceIsVector
            if isUpscaled && !allowsUpscaling {
                throw .wouldUpscale(scale: scale, source: sourceSize, rendition: pixels, factor: factor)
            }
            var content = sourceSize.scaled(toward: pixels, mode: mode)
            if framing == .fit {
                // Rounding never takes a side past the box, but the canvas must hold the content.
                content = PixelSize(width: min(content.width, pixels.width), height: min(content.height, pixels.height))
            }
            renditions.append(
                Rendition(
                    scale: scale, pixelSize: pixels, contentSize: content,
                    filename: Self.filename(name: name, scale: scale), isUpscaled: isUpscaled))
        }
        self.renditions = renditions
    }

    /// The image set's `Contents.json`: a `universal` entry for each of 1x, 2x and 3x, with the file
    /// name of those this plan makes (a scale not asked for is an empty slot, as Xcode writes it).
    public var contents: AssetCatalogContents {
        let images = Self.catalogScales.map { scale in
            AssetCatalogContents.Image(
                filename: renditions.first { $0.scale == scale }?.filename, scale: Self.scaleName(scale))
        }
        return AssetCatalogContents(images: images)
    }

    /// The rendition's bitmap, exactly ``Rendition/pixelSize``, made by ``Thumbnailer`` on the
    /// `WorkExecutor`: a vector source drawn at the size, a bitmap shrunk while decoding (or,
    /// when ``Rendition/isUpscaled``, decoded whole and enlarged with Lanczos-3), then centre-cropped
    /// or padded with transparent pixels as ``framing`` says. Upright by the EXIF orientation.
    ///
    /// Padding adds an alpha channel to an opaque source; a rendition the content fills keeps the
    /// source's channels.
    /// - Parameters:
    ///   - rendition: One of ``renditions``.
    ///   - source: The image the plan was made for.
    ///   - colorManagement: As ``ThumbnailOptions/colorManagement``; the result's
    ///     ``Thumbnail/iccProfile`` is the profile to embed.
    ///   - pageIndex: The PDF page the plan was made for, from 0.
    ///   - priority: The executor's priority for the work.
    ///   - executor: Where the decode runs; `WorkExecutor.shared` by default.
    /// - Throws: ``ImageDecodingError``, `CancellationError`, or `WorkQueueFullError`.
    public func render(
        _ rendition: Rendition, from source: ImageSource, colorManagement: ColorManagement = .convertToSRGB,
        pageIndex: Int = 0, priority: WorkPriority = .normal, executor: WorkExecutor = .shared
    ) async throws -> Thumbnail {
        try await executor.run(priority: priority) { context in
            do {
                return try render(rendition, from: source, colorManagement: colorManagement, pageIndex: pageIndex, context: context)
            } catch ImageDecodingError.cancelled {
                throw CancellationError()
            }
        }
    }

    /// ``render(_:from:colorManagement:pageIndex:priority:executor:)`` on the calling thread.
    public func render(
        _ rendition: Rendition, from source: ImageSource, colorManagement: ColorManagement = .convertToSRGB,
        pageIndex: Int = 0
    ) throws(ImageDecodingError) -> Thumbnail {
        try render(rendition, from: source, colorManagement: colorManagement, pageIndex: pageIndex, context: .uncancellable)
    }

    func render(
        _ rendition: Rendition, from source: ImageSource, colorManagement: ColorManagement, pageIndex: Int,
        context: WorkContext
    ) throws(ImageDecodingError) -> Thumbnail {
        let box = rendition.pixelSize
        var thumbnail: Thumbnail
        if rendition.isUpscaled {
            // The Thumbnailer never enlarges a bitmap: take it whole (it is smaller than the
            // rendition) and enlarge it here.
            let options = ThumbnailOptions(sizing: .fit(maxPixelSize: nil), colorManagement: colorManagement, pageIndex: pageIndex)
            thumbnail = try Thumbnailer().thumbnail(source, options: options, context: context)
            thumbnail.pixels = LanczosResampler.resize(thumbnail.pixels, to: rendition.contentSize)
        } else {
            let sizing = ThumbnailOptions.Sizing.box(box, mode: framing == .fit ? .fit : .centerCrop)
            let options = ThumbnailOptions(sizing: sizing, colorManagement: colorManagement, pageIndex: pageIndex)
            thumbnail = try Thumbnailer().thumbnail(source, options: options, context: context)
        }
        thumbnail.pixels = thumbnail.pixels.centerCropped(to: box).centered(on: box)
        return thumbnail
    }

    /// `NAME.png` at 1x, `NAME@2x.png` and `NAME@3x.png` otherwise.
    public static func filename(name: String, scale: DisplayScale) -> String {
        scale == .x1 ? "\(name).png" : "\(name)@\(scaleName(scale)).png"
    }

    /// `1x`, `2x`, `3x`.
    static func scaleName(_ scale: DisplayScale) -> String { number(scale.value) + "x" }

    /// Checks an image set's name (the base of its file names).
    /// - Throws: ``AssetRenditionError/invalidArgument(_:)`` when it is empty, starts with `.`, or
    ///   has a `/` or a control character.
    public static func check(name: String) throws(AssetRenditionError) {
        guard !name.isEmpty, !name.hasPrefix("."), !name.contains("/"),
            !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw .invalidArgument(
                InvalidArgumentError(
                    "name", "must be a file name: not empty, not starting with '.', without '/' or control characters"))
        }
    }

    fileprivate static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}

/// Why renditions cannot be planned.
public enum AssetRenditionError: TesseraError, Equatable {
    /// A name, point size or scale out of range, named with the accepted range.
    case invalidArgument(InvalidArgumentError)
    /// A bitmap source smaller than the rendition of `scale` needs: it would be enlarged by
    /// `factor`. `source` is its upright size, `rendition` the bitmap's, both in pixels.
    case wouldUpscale(scale: DisplayScale, source: PixelSize, rendition: PixelSize, factor: Double)
    /// The rendition of `scale` has more pixels than `limit` (`rendition` is nil when its sides do
    /// not even fit in a pixel size).
    case tooLarge(scale: DisplayScale, rendition: PixelSize?, limit: Int)

    /// `ErrorCategory.tooLarge` for a rendition over the pixel limit, `ErrorCategory.badInput`
    /// otherwise.
    public var category: ErrorCategory {
        switch self {
        case .invalidArgument, .wouldUpscale: .badInput
        case .tooLarge: .tooLarge
        }
    }

    public var description: String {
        switch self {
        case .invalidArgument(let error):
            return error.description
        case .wouldUpscale(let scale, let source, let rendition, let factor):
            let scaleName = AssetRenditionPlan.scaleName(scale)
            let enlargement = AssetRenditionPlan.number((factor * 100).rounded(.up) / 100)
            return "the \(source) source is too small for the \(rendition) pixels of @\(scaleName): "
                + "it would be enlarged \(enlargement)×, which blurs it; upscaling is not allowed"
        case .tooLarge(let scale, let rendition, let limit):
            let size = rendition.map { "\($0) = \($0.area) pixels" } ?? "sides beyond any bitmap"
            return "too large: the @\(AssetRenditionPlan.scaleName(scale)) rendition would be \(size), over the limit of \(limit)"
        }
    }
}

/// An image set's `Contents.json`, as Xcode's asset catalogs read and write it:
///
/// ```json
/// {
///   "images" : [
///     { "filename" : "Logo.png", "idiom" : "universal", "scale" : "1x" },
///     { "filename" : "Logo@2x.png", "idiom" : "universal", "scale" : "2x" },
///     { "filename" : "Logo@3x.png", "idiom" : "universal", "scale" : "3x" }
///   ],
///   "info" : { "author" : "xcode", "version" : 1 }
/// }
/// ```
///
/// `info.author` is `xcode`: Xcode accepts any author, and writes `xcode` itself, so a catalog it
/// rewrites shows no change there.
public struct AssetCatalogContents: Sendable, Hashable, Codable {
    /// One slot of the image set.
    public struct Image: Sendable, Hashable, Codable {
        /// The file in the `.imageset` folder; nil for an empty slot.
        public var filename: String?
        /// The device family: `universal` for every device.
        public var idiom: String
        /// `1x`, `2x` or `3x`; nil for a single-scale (vector) image.
        public var scale: String?

        /// A slot for `filename` at `scale` (`2x`); `universal` unless `idiom` says otherwise.
        public init(filename: String?, idiom: String = "universal", scale: String?) {
            self.filename = filename
            self.idiom = idiom
            self.scale = scale
        }
    }

    /// Who wrote the file, and the format's version (1).
    public struct Info: Sendable, Hashable, Codable {
        /// Who wrote the file: `xcode` by default.
        public var author: String
        /// The format's version: 1.
        public var version: Int

        /// The `info` Xcode writes itself.
        public init(author: String = "xcode", version: Int = 1) {
            self.author = author
            self.version = version
        }
    }

    /// The image set's options.
    public struct Properties: Sendable, Hashable, Codable {
        /// Keep the vector data (PDF, SVG) in the compiled catalog, so the image is drawn sharp at
        /// any size rather than from bitmaps rendered at build time.
        public var preservesVectorRepresentation: Bool?

        /// Options that keep, drop or leave unset (nil) the vector data.
        public init(preservesVectorRepresentation: Bool? = nil) {
            self.preservesVectorRepresentation = preservesVectorRepresentation
        }

        enum CodingKeys: String, CodingKey {
            case preservesVectorRepresentation = "preserves-vector-representation"
        }
    }

    /// The slots: one per scale, or one without a scale for a vector image.
    public var images: [Image]
    /// Who wrote the file and the format's version.
    public var info: Info
    /// Nil for bitmaps; ``Properties/preservesVectorRepresentation`` for a vector image.
    public var properties: Properties?

    /// The contents of an image set of `images`; `properties` only for a vector image.
    public init(images: [Image], info: Info = Info(), properties: Properties? = nil) {
        self.images = images
        self.info = info
        self.properties = properties
    }

    /// A single-scale vector image set (Xcode's "Single Scale" with "Preserve Vector Data"): the
    /// PDF or SVG file `filename` as the one universal image.
    public static func vector(filename: String) -> AssetCatalogContents {
        AssetCatalogContents(
            images: [Image(filename: filename, scale: nil)],
            properties: Properties(preservesVectorRepresentation: true))
    }

    /// The JSON as Xcode writes it: indented, keys sorted, ending in a newline.
    public func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Strings, numbers and booleans only: encoding cannot fail.
        var data = try! encoder.encode(self)
        data.append(0x0A)
        return data
    }
}

extension PixelBuffer {
    /// This buffer centred on a transparent canvas of `size` (an alpha channel added if it has
    /// none); itself when it is that size already. Must not be larger than `size` on either side.
    fileprivate func centered(on size: PixelSize) -> PixelBuffer {
        guard self.size != size else { return self }
        let source = converted(to: format.withAlpha(true))
        var canvas = PixelBuffer(width: size.width, height: size.height, format: source.format)
        let origin = size.centered(self.size)
        let (rowBytes, canvasRowBytes, pixelBytes) = (source.bytesPerRow, canvas.bytesPerRow, source.format.bytesPerPixel)
        canvas.bytes.withUnsafeMutableBufferPointer { destination in
            source.bytes.withUnsafeBufferPointer { pixels in
                for row in 0..<source.height {
                    let target = (origin.y + row) * canvasRowBytes + origin.x * pixelBytes
                    (destination.baseAddress! + target).update(from: pixels.baseAddress! + row * rowBytes, count: rowBytes)
                }
            }
        }
        return canvas
    }
}
