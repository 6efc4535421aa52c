import CTesseraJP2
import TesseraCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Streams a JPEG 2000 image through OpenJPEG at a resolution level and over a window: each band of
/// rows is one `opj_decode` of that band's area at that level, so only the code blocks (and, in a
/// tiled or precinct-indexed file, the packets) the window touches are decoded, and memory is one
/// band of 32-bit samples, never the image.
///
/// Samples are reduced to 8 bits (high bits kept, as for 16-bit PNG and TIFF); components
/// subsampled on the grid are stretched to the luma's size; sYCC is turned into RGB. Deeper than
/// 8 bits with a profile to convert from, the samples are converted at 16 bits by LittleCMS first.
final class JP2ScanlineReader: ScanlineReader {
    let outputSize: PixelSize
    let outputFormat: PixelFormat
    let isTruncated = false
    var convertsColor: Bool { wideTransform != nil }
    /// Rows hold only the window's columns.
    var columnOffset: Int { window.x }

    private let input: LibraryInput
    private let header: JP2Header
    /// The three colour components are Y, Cb, Cr (``JP2Header/isYCC``, or the decode says so).
    private let samplesAreYCC: Bool
    private let reduction: Int
    /// The window on the level, in level pixels.
    private let window: PixelRect
    private let bandRows: Int
    private let limits: AllocationLimits
    private let wideTransform: ColorTransform?
    private var band: Band?
    /// Whether a band is decoded as the whole level and cut: for HTJ2K, whose area decodes
    /// OpenJPEG 2.5.0 gets wrong (pixels off by up to 128 against the whole image, measured with
    /// its own opj_decompress -d on our htj2k.j2c fixture).
    private let decodesWholeLevel: Bool

    /// Decoded samples of one area of the level.
    private struct Band {
        /// The window rows it gives.
        var rows: Range<Int>
        /// The decoded area, in level pixels.
        var area: PixelRect
        /// Each component's samples (`widths[i] × heights[i]`, covering `area` on its own grid).
        var samples: [ZeroedBuffer<Int32>]
        var widths: [Int]
        var heights: [Int]
        /// For each component, the sample column of each of the area's columns (nil: the same
        /// column, a component on the image's own grid), and likewise the sample row of each row.
        var columns: [[Int]?]
        var rowsOfArea: [[Int]?]
    }
    private var nextRow = 0
    private var wideRow: ZeroedBuffer<UInt16>?

    /// The bytes of 32-bit samples one band may hold: enough rows that a band of a tiled file is
    /// a row of tiles or more, few enough that a band of the widest image stays small.
    static let defaultBandByteBudget = 48 << 20

    /// - Parameters:
    ///   - reduction: the resolution level (0: full size; at most ``JP2Header/maximumReduction``).
    ///   - window: the rows and columns to produce, in pixels of that level; nil: all.
    ///   - bandByteBudget: the most bytes of samples a band holds (at least 16 rows, or a row of tiles).
    init(
        source: ImageSource, header: JP2Header, profile: ICCProfile?, options: DecodeOptions, reduction: Int = 0, window: PixelRect? = nil,
        bandByteBudget: Int = defaultBandByteBudget
    ) throws(ImageDecodingError) {
        _ = try Libraries.openJPEG.get()
        guard header.depth <= JP2Header.maximumDepth else {
            throw .unsupported(reason: "\(header.depth)-bit JPEG 2000 samples (at most \(JP2Header.maximumDepth))")
        }
        guard header.outputComponentCount >= 1 else {
            throw .corrupt(reason: "a JPEG 2000 image with no components")
        }
        self.header = header
        self.reduction = min(max(0, reduction), header.maximumReduction)
        let level = Self.levelSize(header.size, reduction: self.reduction)
        let whole = PixelRect(x: 0, y: 0, width: level.width, height: level.height)
        self.window = (window ?? whole).intersection(whole)
        guard self.window.width > 0, self.window.height > 0 else { throw .corrupt(reason: "the region lies outside the image") }
        outputSize = self.window.size
        outputFormat = header.decodedFormat
        samplesAreYCC = header.isYCC || options.jpeg2000SamplesAreYCbCr
        limits = options.limits
        input = try LibraryInput(source, inMemory: true)
        let components = max(1, header.outputComponentCount)
        let rowBytes = max(1, self.window.width * components * 4)
        var rows = max(16, bandByteBudget / rowBytes)
        decodesWholeLevel = header.layout.isHighThroughput
        if decodesWholeLevel {
            rows = self.window.height
            _ = try limits.byteCount(width: level.width, rows: level.height, bytesPerPixel: components * 4)
        } else if rows < self.window.height, header.layout.tileRows > 1 {
            // Bands on tile rows: a tile cut by two bands would be decoded twice.
            let tileRows = max(1, Self.levelSize(header.layout.tileSize, reduction: self.reduction).height)
            rows = max(tileRows, rows / tileRows * tileRows)
        }
        bandRows = min(rows, self.window.height)
        _ = try limits.byteCount(width: self.window.width, rows: bandRows, bytesPerPixel: components * 4)
        wideTransform =
            header.depth > 8
            ? ColorConverter.shared.wideTransform(options.colorManagement, profile: profile, format: outputFormat, bigEndian: false)
            : nil
    }

    /// The size of resolution level `reduction`: `ceil(size / 2^reduction)`, as OpenJPEG decodes it
    /// (the same as halving `(size + 1) / 2` that many times).
    static func levelSize(_ size: PixelSize, reduction: Int) -> PixelSize {
        let step = 1 << reduction
        return PixelSize(width: (size.width + step - 1) / step, height: (size.height + step - 1) / step)
    }

    /// The coarsest resolution level whose size still covers `minimumSize` (0 without one).
    static func reduction(for header: JP2Header, minimumSize: PixelSize?) -> Int {
        guard let minimumSize else { return 0 }
        var reduction = header.maximumReduction
        while reduction > 0 {
            let size = levelSize(header.size, reduction: reduction)
            if size.width >= minimumSize.width && size.height >= minimumSize.height { break }
            reduction -= 1
        }
        return reduction
    }

    func readRows(into destination: UnsafeMutablePointer<UInt8>, maximumRows: Int) throws(ImageDecodingError) -> Int {
        guard nextRow < outputSize.height, maximumRows > 0 else { return 0 }
        if band == nil || !band!.rows.contains(nextRow) { try decodeBand(startingAt: nextRow) }
        guard let band else { return 0 }
        let count = min(maximumRows, band.rows.upperBound - nextRow)
        let rowBytes = outputSize.width * outputFormat.bytesPerPixel
        for index in 0..<count {
            try convert(row: nextRow + index - band.rows.lowerBound, of: band, into: destination + index * rowBytes)
        }
        nextRow += count
        return count
    }

    /// Decodes rows `start…` of the window (up to ``bandRows``) with a fresh codec: OpenJPEG
    /// decodes one area per codec.
    private func decodeBand(startingAt start: Int) throws(ImageDecodingError) {
        band = nil
        let rows = start..<min(outputSize.height, start + bandRows)
        _ = try Libraries.openJPEG.get()
        let decode = CHandle.allocate(TesseraJP2Decode(), destroy: tessera_jp2_close)
        let opened: Int32 =
            input.withFile { file in
                tessera_jp2_open(
                    decode.pointer, fileno(file), nil, UInt64(input.fileByteCount ?? 0), header.layout.isRawCodestream ? 0 : 1,
                    Int32(Libraries.openJPEGDecodeThreadCount))
            }
            ?? input.withBytes { bytes, count in
                tessera_jp2_open(
                    decode.pointer, -1, bytes, UInt64(count), header.layout.isRawCodestream ? 0 : 1, Int32(Libraries.openJPEGDecodeThreadCount))
            }
        guard opened != 0, let image = decode.pointer.pointee.image else {
            throw failure(decode.pointer, "cannot read the JPEG 2000 header")
        }
        // The header OpenJPEG read must be the one checked: the limits were applied to it.
        guard Int(image.pointee.x1) - Int(image.pointee.x0) == header.size.width,
            Int(image.pointee.y1) - Int(image.pointee.y0) == header.size.height,
            Int(image.pointee.numcomps) == header.components.count
        else { throw .corrupt(reason: "OpenJPEG reads another JPEG 2000 header than the one checked") }
        let level = Self.levelSize(header.size, reduction: reduction)
        let area =
            decodesWholeLevel
            ? PixelRect(x: 0, y: 0, width: level.width, height: level.height)
            : PixelRect(x: window.x, y: window.y + rows.lowerBound, width: window.width, height: rows.count)
        // The area on the full-resolution grid: level pixels scaled up, clipped to the image.
        let x0 = header.origin.x + (area.x << reduction), y0 = header.origin.y + (area.y << reduction)
        let x1 = min(header.origin.x + header.size.width, header.origin.x + ((area.x + area.width) << reduction))
        let y1 = min(header.origin.y + header.size.height, header.origin.y + ((area.y + area.height) << reduction))
        // A subsampled component's first sample may lie left of (or above) the area: the decode
        // starts where every component's sample for the area's first pixel is.
        let decodeX0 = Self.alignedStart(x0, origin: header.origin.x, step: 1 << reduction, subsampling: header.components.map(\.dx))
        let decodeY0 = Self.alignedStart(y0, origin: header.origin.y, step: 1 << reduction, subsampling: header.components.map(\.dy))
        guard tessera_jp2_decode_area(decode.pointer, UInt32(reduction), Int32(decodeX0), Int32(decodeY0), Int32(x1), Int32(y1)) != 0 else {
            throw failure(decode.pointer, "cannot decode the JPEG 2000 data")
        }
        // Copied out of OpenJPEG's buffers so the codec is freed now; a band is small.
        let count = min(Int(image.pointee.numcomps), header.outputComponentCount)
        guard count >= outputFormat.bytesPerPixel || (outputFormat.isGray && count >= 1) else {
            throw .corrupt(reason: "OpenJPEG decoded \(count) components for \(outputFormat)")
        }
        var samples: [ZeroedBuffer<Int32>] = [], widths: [Int] = [], heights: [Int] = []
        var columns: [[Int]?] = [], rowsOfArea: [[Int]?] = []
        for index in 0..<count {
            let component = image.pointee.comps[index]
            guard let data = component.data else { throw .corrupt(reason: "OpenJPEG decoded no samples for component \(index)") }
            let width = Int(component.w), height = Int(component.h)
            // A component has at most one sample per pixel of the decoded area (fewer when subsampled).
            guard width > 0, height > 0, width <= ((x1 - decodeX0) >> reduction) + 1, height <= ((y1 - decodeY0) >> reduction) + 1 else {
                throw .corrupt(reason: "OpenJPEG decoded \(width)×\(height) samples of component \(index) for \(area.width)×\(area.height)")
            }
            let buffer = try limits.zeroedBuffer(width: width, rows: height, elementsPerPixel: 1, of: Int32.self)
            buffer.elements.baseAddress!.update(from: data, count: width * height)
            samples.append(buffer)
            widths.append(width)
            heights.append(height)
            columns.append(
                Self.sampleIndices(
                    count: area.width, start: x0, decodeStart: decodeX0, step: 1 << reduction, subsampling: Int(component.dx),
                    samples: width))
            rowsOfArea.append(
                Self.sampleIndices(
                    count: area.height, start: y0, decodeStart: decodeY0, step: 1 << reduction, subsampling: Int(component.dy),
                    samples: height))
        }
        band = Band(rows: rows, area: area, samples: samples, widths: widths, heights: heights, columns: columns, rowsOfArea: rowsOfArea)
    }

    /// Where to start decoding on the reference grid, at or before `start`, so that each
    /// component's sample for the pixel at `start` is decoded: the start of that sample's cell
    /// (`step × subsampling` wide; `step` is 2^reduction), the earliest of them, not before `origin`.
    static func alignedStart(_ start: Int, origin: Int, step: Int, subsampling: [Int]) -> Int {
        let starts = subsampling.map { factor in start / (step * max(1, factor)) * (step * max(1, factor)) }
        return max(origin, starts.min() ?? start)
    }

    /// Which sample of a component each of `count` pixels of a band takes, along one axis: pixel
    /// `i` starts at `start + i × step` on the reference grid (`step` is 2^reduction), and the
    /// component's sample `k` at this level covers `[k, k + 1) × step × subsampling` of it (as
    /// OpenJPEG's own tool upsamples; a pixel before the image's first sample takes that one). The
    /// first sample decoded is the decode's start on the component's grid at this level,
    /// `⌈⌈decodeStart / subsampling⌉ / step⌉`, as OpenJPEG sizes it. nil when every pixel takes its
    /// own sample (a component on the image's grid, decoded from the band's start): the common case.
    static func sampleIndices(count: Int, start: Int, decodeStart: Int, step: Int, subsampling: Int, samples: Int) -> [Int]? {
        let subsampling = max(1, subsampling)
        let first = ((decodeStart + subsampling - 1) / subsampling + step - 1) / step
        let indices = (0..<count).map { i in min(samples - 1, max(0, (start + i * step) / (step * subsampling) - first)) }
        return samples == count && indices.elementsEqual(0..<count) ? nil : indices
    }

    private func failure(_ decode: UnsafeMutablePointer<TesseraJP2Decode>, _ what: String) -> ImageDecodingError {
        let message = cMessage(decode.pointee.messages.error)
        return .corrupt(reason: message.isEmpty ? what : "\(what): \(message)")
    }

    /// One output row from a band's component samples: each sample scaled to 8 bits (or 16 for
    /// ``wideTransform``), subsampled components stretched, sYCC turned into RGB.
    private func convert(
        row: Int, of band: Band, into destination: UnsafeMutablePointer<UInt8>
    ) throws(ImageDecodingError) {
        let width = outputSize.width, channels = outputFormat.bytesPerPixel
        let colorChannels = outputFormat.isGray ? 1 : 3
        let isYCC = samplesAreYCC && colorChannels == 3
        let wide = wideTransform != nil
        if wide && wideRow == nil { wideRow = try limits.zeroedBuffer(width: width, rows: 1, elementsPerPixel: channels, of: UInt16.self) }
        // The components in output order: the colour ones, then the alpha one (cdef may put it anywhere).
        var order = Array(0..<band.samples.count)
        if let alpha = header.alphaComponent, alpha < order.count, outputFormat.hasAlpha {
            order.remove(at: alpha)
            order.append(alpha)
        }
        let outputs = min(channels, order.count)
        let maximum = wide ? 65535 : 255
        for channel in 0..<channels {
            let component = order[min(channel, outputs - 1)]
            let depth = header.components[min(component, header.components.count - 1)].depth
            let signed = header.components[min(component, header.components.count - 1)].isSigned
            let width0 = band.widths[component]
            // The row and first column in the decoded area; a subsampled component's by its own grid.
            let areaRow = window.y + band.rows.lowerBound + row - band.area.y, areaColumn = window.x - band.area.x
            let sourceRow = band.rowsOfArea[component]?[areaRow] ?? areaRow
            let samples = band.samples[component].elements.baseAddress! + sourceRow * width0
            let offset: Int32 = signed ? 1 << (depth - 1) : 0
            let top = (1 << depth) - 1
            let columns = band.columns[component]
            let stretched = columns != nil
            // Scaled to the output's range: shifted when deeper, multiplied up when shallower.
            let shift = wide ? 16 - depth : depth - 8
            if !wide && !stretched && depth == 8 {
                // The common case, kept to a clamp per sample: 8-bit samples, one per pixel.
                let row = samples + areaColumn, target = destination + channel
                for x in 0..<width { target[x * channels] = UInt8(clamping: row[x] + offset) }
                continue
            }
            for x in 0..<width {
                let column = areaColumn + x
                var value = Int(samples[columns?[column] ?? column] + offset)
                value = min(max(value, 0), top)
                let scaled: Int
                if wide {
                    scaled = shift >= 0 ? value << shift | value >> max(0, depth - shift) : value >> -shift
                } else {
                    scaled = shift >= 0 ? value >> shift : value * 255 / top
                }
                if wide {
                    wideRow!.elements[x * channels + channel] = UInt16(min(scaled, maximum))
                } else {
                    destination[x * channels + channel] = UInt8(min(scaled, maximum))
                }
            }
        }
        if isYCC { Self.yccToRGB(destination, wide: wideRow, width: width, channels: channels) }
        if let wideTransform, let wideRow {
            wideTransform.apply(from: wideRow.elements.baseAddress!, to: destination, pixelCount: width)
        }
    }

    /// sYCC (full-range BT.601, 15444-1 annex I) to RGB, in place.
    private static func yccToRGB(_ pixels: UnsafeMutablePointer<UInt8>, wide: ZeroedBuffer<UInt16>?, width: Int, channels: Int) {
        func convert(_ y: Double, _ cb: Double, _ cr: Double, _ maximum: Double) -> (Double, Double, Double) {
            let half = (maximum + 1) / 2
            let r = y + 1.402 * (cr - half), g = y - 0.344136 * (cb - half) - 0.714136 * (cr - half), b = y + 1.772 * (cb - half)
            return (min(max(r, 0), maximum), min(max(g, 0), maximum), min(max(b, 0), maximum))
        }
        for x in 0..<width {
            let base = x * channels
            if let wide {
                let p = wide.elements.baseAddress! + base
                let (r, g, b) = convert(Double(p[0]), Double(p[1]), Double(p[2]), 65535)
                (p[0], p[1], p[2]) = (UInt16(r.rounded()), UInt16(g.rounded()), UInt16(b.rounded()))
            } else {
                let p = pixels + base
                let (r, g, b) = convert(Double(p[0]), Double(p[1]), Double(p[2]), 255)
                (p[0], p[1], p[2]) = (UInt8(r.rounded()), UInt8(g.rounded()), UInt8(b.rounded()))
            }
        }
    }
}
