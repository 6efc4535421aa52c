public import TesseraCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One instance of a DICOM whole-slide image (Supplement 145, VL Whole Slide Microscopy Image
/// Storage): one level of a slide's pyramid, or its label, overview or thumbnail, stored as frames
/// that are tiles of its total pixel matrix (JPEG baseline, JPEG 2000 or uncompressed).
///
/// Only what a slide reader needs is read (`DICOMElementReader`): the header up to the pixel
/// data, never a frame, so opening one costs a few windows of the file. Frames are found on first
/// read: through the Basic or Extended Offset Table, or, when the table is empty, by one walk over
/// the fragments' item headers (`DICOMFrameTable`). Reads open the source each time, so any
/// number of threads read one instance at once.
public final class DICOMInstance: Sendable {
    /// What the instance is (Image Type's third value).
    public enum Flavor: String, Sendable {
        case volume, label, overview, thumbnail, other
    }

    /// The series the instance belongs to: the instances of one slide share it.
    public let seriesUID: String
    public let flavor: Flavor
    /// The total pixel matrix: the whole level, in pixels.
    public let size: PixelSize
    /// One frame's size: the level's tiles, the right and bottom ones padded.
    public let tileSize: PixelSize
    /// How every tile reads: RGB or grey.
    public let pixelFormat: PixelFormat
    /// Micrometres per pixel across (Pixel Spacing's column spacing, in mm, × 1000); nil without one.
    public let micronsPerPixel: Double?
    /// The objective lens power of the first optical path; nil without one.
    public let objectivePower: Double?
    /// Where the slide has no tissue and no frame: Recommended Absent Pixel CIELab Value as sRGB
    /// (red, green, blue), nil when the instance states none.
    public let background: [UInt8]?
    /// The first optical path's ICC profile, when it is a sound one.
    public let iccProfile: ICCProfile?
    /// How the header reads for hosts: format `dicom`, the matrix's size, the frames' pixel format.
    public let properties: ImageProperties
    /// The instance's file, for one read from a file.
    public var filePath: String? { frames.source.filePath }

    let frames: DICOMFrameTable
    /// For `TILED_SPARSE` instances, the frame of each tile (row by row, -1 where none is stored);
    /// nil for `TILED_FULL`, whose frames are the tiles in order.
    private let sparseTiles: [Int32]?
    private let encoding: DICOMFrameTable.Encoding
    private let colorTransform: ColorTransform?

    /// The instance `source` holds, or nil when it belongs to another series than `series`
    /// (the header read only up to its Series Instance UID then).
    ///
    /// - Throws: ``ImageDecodingError/unknownFormat`` for bytes that are no DICOM file;
    ///   ``ImageDecodingError/unsupported(reason:)`` for DICOM that is not a whole-slide image or is
    ///   coded in a way this reader does not decode; truncation and corruption errors for a broken one.
    public static func read(_ source: ImageSource, options: DecodeOptions, series: String? = nil) throws(ImageDecodingError) -> DICOMInstance? {
        guard let header = try DICOMHeader.read(source, series: series) else { return nil }
        return try DICOMInstance(source, header: header, options: options)
    }

    private init(_ source: ImageSource, header: DICOMHeader, options: DecodeOptions) throws(ImageDecodingError) {
        guard header.sopClass == Self.wholeSlideSOPClass else {
            throw .unsupported(reason: "a DICOM file that is not a whole-slide image (SOP class \(header.sopClass.prefix(64)))")
        }
        guard let width = header.totalColumns ?? header.columns, let height = header.totalRows ?? header.rows,
            let tileWidth = header.columns, let tileHeight = header.rows, width > 0, height > 0, tileWidth > 0, tileHeight > 0
        else { throw .corrupt(reason: "a DICOM slide without its matrix or frame size") }
        guard header.bitsAllocated == 8, [1, 3].contains(header.samplesPerPixel) else {
            throw .unsupported(reason: "DICOM frames of \(header.samplesPerPixel) samples of \(header.bitsAllocated) bits")
        }
        size = PixelSize(width: width, height: height)
        tileSize = PixelSize(width: tileWidth, height: tileHeight)
        let grid = (columns: (width + tileWidth - 1) / tileWidth, rows: (height + tileHeight - 1) / tileHeight)
        guard grid.columns * grid.rows <= DICOMHeader.maximumFrameCount else {
            throw .corrupt(reason: "a DICOM level of \(grid.columns)×\(grid.rows) tiles, over the limit")
        }
        seriesUID = header.seriesUID
        flavor = Flavor(rawValue: header.imageFlavor.lowercased()) ?? .other
        pixelFormat = header.samplesPerPixel == 3 ? .rgb8 : .gray8
        micronsPerPixel = header.pixelSpacing.flatMap { $0.isFinite && $0 > 0 ? $0 * 1000 : nil }
        objectivePower = header.objectivePower.flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
        background = header.absentPixelCIELab.flatMap(Self.sRGB(lab:))
        encoding = try DICOMFrameTable.Encoding(
            transferSyntax: header.transferSyntax, photometric: header.photometric, planar: header.planarConfiguration)
        frames = try DICOMFrameTable(
            source, header: header, encoding: encoding, frameByteCount: tileWidth * tileHeight * header.samplesPerPixel)
        var properties = ImageProperties(format: .dicom, size: size, decodedFormat: pixelFormat, fileByteCount: frames.fileByteCount)
        properties.attachProfile(header.iccProfile)
        self.properties = properties
        iccProfile = properties.iccProfile
        let format = pixelFormat
        colorTransform =
            options.colorManagement == .convertToSRGB
            ? properties.iccProfile.flatMap { ColorConverter.shared.transform(from: $0, format: format) } : nil
        if header.dimensionOrganization != "TILED_FULL", let positions = header.framePositions {
            var tiles = [Int32](repeating: -1, count: grid.columns * grid.rows)
            for (frame, position) in positions.enumerated() {
                // Positions are 1-based pixels of the matrix; a frame off the tile grid is not a tile.
                let x = position.column - 1, y = position.row - 1
                guard x >= 0, y >= 0, x % tileWidth == 0, y % tileHeight == 0, x < width, y < height else { continue }
                let index = y / tileHeight * grid.columns + x / tileWidth
                // The first frame at a place is its first focal plane and optical path.
                if tiles[index] < 0 { tiles[index] = Int32(frame) }
            }
            sparseTiles = tiles
        } else {
            guard header.numberOfFrames >= grid.columns * grid.rows else {
                throw .corrupt(reason: "a TILED_FULL DICOM level of \(grid.columns * grid.rows) tiles has \(header.numberOfFrames) frames")
            }
            sparseTiles = nil
        }
    }

    /// VL Whole Slide Microscopy Image Storage.
    static let wholeSlideSOPClass = "1.2.840.10008.5.1.4.1.1.77.1.6"

    /// The frame holding tile `(column, row)`, or nil for a tile outside the matrix or not stored.
    public func frameIndex(column: Int, row: Int) -> Int? {
        let columns = (size.width + tileSize.width - 1) / tileSize.width
        guard column >= 0, row >= 0, column < columns, row * tileSize.height < size.height else { return nil }
        let index = row * columns + column
        guard let sparseTiles else { return index }
        return sparseTiles[index] >= 0 ? Int(sparseTiles[index]) : nil
    }

    /// Tile `(column, row)` decoded and cut at the matrix's right and bottom edges, nil when no
    /// frame stores it (a sparse level's gap).
    ///
    /// - Throws: what reading or decoding the frame throws.
    public func tile(column: Int, row: Int) throws(ImageDecodingError) -> PixelBuffer? {
        guard let frame = frameIndex(column: column, row: row) else { return nil }
        var pixels = try encoding.decode(try frames.frame(frame), tileSize: tileSize, format: pixelFormat)
        let width = min(tileSize.width, size.width - column * tileSize.width), height = min(tileSize.height, size.height - row * tileSize.height)
        if width < pixels.width || height < pixels.height, let cut = pixels.cropped(x: 0, y: 0, width: width, height: height) {
            pixels = cut
        }
        colorTransform?.apply(to: &pixels)
        return pixels
    }

    /// Tile `(column, row)` as stored, made a JPEG file any reader takes (the RGB coding and the
    /// ICC profile put in, no pixel decoded); nil when it cannot be one: frames not JPEG baseline,
    /// no frame there, or a tile reaching past the matrix's right or bottom edge (stored padded).
    ///
    /// - Throws: what reading the frame throws.
    public func storedTile(column: Int, row: Int) throws(ImageDecodingError) -> [UInt8]? {
        guard case .jpeg(let codedAsRGB) = encoding, (column + 1) * tileSize.width <= size.width,
            (row + 1) * tileSize.height <= size.height, let frame = frameIndex(column: column, row: row)
        else { return nil }
        return JPEGTileSplice.file(tile: try frames.frame(frame), tables: nil, codedAsRGB: codedAsRGB, profile: iccProfile?.data)
    }

    /// CIELab as DICOM codes it (PS3.3 C.10.7.1.1: L* 0…100 and a*, b* −128…127 scaled to
    /// 0…65535, D50) in sRGB. a* and b* both coded 0 (−128, a colour no display shows) are read as
    /// neutral: writers that meant "no tint" and left out the offset (OpenSlide's `boxes_0.dcm`).
    static func sRGB(lab: [Int]) -> [UInt8]? {
        guard lab.count >= 3 else { return nil }
        let neutral = lab[1] == 0 && lab[2] == 0
        let l = Double(lab[0]) / 65535 * 100
        let a = neutral ? 0 : Double(lab[1]) / 65535 * 255 - 128, b = neutral ? 0 : Double(lab[2]) / 65535 * 255 - 128
        func inverse(_ t: Double) -> Double { t > 6.0 / 29 ? t * t * t : 3 * (6.0 / 29) * (6.0 / 29) * (t - 4.0 / 29) }
        let fy = (l + 16) / 116
        // XYZ relative to D50, then Bradford-adapted to D65 and into linear sRGB in one matrix.
        let x = 0.9642 * inverse(fy + a / 500), y = inverse(fy), z = 0.8249 * inverse(fy - b / 200)
        let linear = [
            3.1338561 * x - 1.6168667 * y - 0.4906146 * z,
            -0.9787684 * x + 1.9161415 * y + 0.0334540 * z,
            0.0719453 * x - 0.2289914 * y + 1.4052427 * z,
        ]
        return linear.map { value in
            let clamped = min(max(value, 0), 1)
            let encoded = clamped <= 0.0031308 ? 12.92 * clamped : 1.055 * pow(clamped, 1 / 2.4) - 0.055
            return UInt8((encoded * 255).rounded())
        }
    }
}
