import TesseraCodecs
import TesseraCore
import TesseraIIIF
import TesseraTiles

extension SourcePlan {
    /// The image information (info.json) of the source this plan serves, whose service `id` is `id`.
    /// - Parameters:
    ///   - limits: the server's IIIF limits.
    ///   - grant: what the requester may see: a substitute's info.json promises no more than it
    ///     (`maxWidth`/`maxHeight`, its sizes and scale factors).
    ///   - partOf: the manifest that shows the image, when the Presentation routes are mounted.
    ///   - auth: the probe service of an image not everyone may see whole.
    func imageInfo(
        id: String, limits: IIIFLimits, grant: AccessControl.Grant, partOf: ResourceReference?, auth: IIIFAuthService?
    ) -> IIIFImageInfo {
        let full = properties.displaySize
        var limits = limits
        // A scale factor per level, each level the image at it: whatever clients make of the
        // two lists, a size is where its factor is. (OpenSeadragon 5, in Mirador 4 and TIFY,
        // takes `sizes` for its levels, paired from the coarsest, whenever there are as many
        // as its levels or one fewer: sizes listed to 63 px beside factors to 64 on a
        // 16000-px image gave each level another's size.)
        var scaleFactors = levelSizes.indices.map { 1 << $0 }
        // Sizes a client may ask for whole (thumbnails, overviews): the levels from about 64 px
        // up to 2048 px on the longest side (the coarsest always), so a tile or a few each.
        var sizes = Array(levelSizes.filter { $0.longestSide <= 2048 }.reversed())
        if sizes.isEmpty, let coarsest = levelSizes.last { sizes = [coarsest] }
        if case .substitute(let substitute) = grant {
            // No more than it will answer: the levels and tiles within the substitute's size,
            // and that size itself, the largest (a client's pairing of sizes with levels meets
            // it at a level it may not have).
            let fitted = substitute.fittedSize(of: full)
            (limits.maxWidth, limits.maxHeight) = (fitted.width, fitted.height)
            sizes = sizes.filter { $0.width < fitted.width && $0.height < fitted.height } + [fitted]
            scaleFactors = scaleFactors.filter { substitute.allows(scaleFactor: $0, full: full) }
        }
        let qualities = grant.marks?.grayOnly == true ? ["gray", "bitonal"] : IIIFImageInfo.defaultExtraQualities
        let tiles = scaleFactors.isEmpty ? [] : [IIIFImageInfo.Tile(width: tileSize.width, height: tileSize.height, scaleFactors: scaleFactors)]
        var info = IIIFImageInfo(id: id, size: full, tiles: tiles, sizes: sizes, limits: limits, extraQualities: qualities)
        info.partOf = partOf.map { [$0] } ?? []
        info.service = auth.map { [$0] } ?? []
        info.physicalDimensions = source.micronsPerPixel.map { PhysicalDimensionsService(imageService: id, micronsPerPixel: $0) }
        return info
    }
}
