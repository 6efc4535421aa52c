public import TesseraCodecs
public import TesseraCore

extension RegionLevels {
    /// A thumbnail read from the source's own levels (a slide's, a pyramid's): the coarsest level
    /// still at least the target's size, read whole (memory: that level, at most about 4× the
    /// target, and a row per halving), then finished as the codecs' thumbnailer finishes a decode
    /// it reduced (`Thumbnailer.finished`). The
    /// source's pixels are sRGB unless it was opened to keep its profile.
    ///
    /// - Throws: `ImageDecodingError.tooLarge` when that level is over
    ///   `ThumbnailOptions.maximumPixelCount` (a full-size "thumbnail" of a slide); what reading
    ///   the level throws (`.cancelled` soon after `context` is).
    public func thumbnail(options: ThumbnailOptions, context: WorkContext = .uncancellable) throws -> Thumbnail {
        let target = options.storedTargetSize(for: properties)
        var reduction = 0
        while reduction < 62, case let next = levelSize(reduction: reduction + 1), next.width >= target.width, next.height >= target.height {
            reduction += 1
        }
        let size = levelSize(reduction: reduction)
        guard size.area <= options.maximumPixelCount else {
            throw ImageDecodingError.tooLarge(pixels: size.area, limit: options.maximumPixelCount)
        }
        let level = try self.level(reduction, context: context)
        let profile = options.colorManagement == .keepSourceProfile ? properties.iccProfile : nil
        return Thumbnailer.finished(
            level, profile: profile, sourceProperties: properties, decodeScale: Double(properties.size.width) / Double(max(1, level.width)),
            options: options)
    }
}
