import Foundation
import TesseraCodecs
import TesseraCore

/// Options for building a pyramid.
public struct PyramidOptions: Sendable {
    public var layout: PyramidLayout
    /// Tile encoding; JPEG quality 75 by default, libvips' default, so outputs compare.
    public var encoding: ImageEncoding
    /// Threads encoding tiles while decoding goes on.
    public var jobs: Int
    /// The most pixels a source that cannot stream (HEIF, WebP, SVG) may decode at full size.
    /// JPEG, PNG, GIF and TIFF stream row by row and ignore it.
    public var maximumPixelCount: Int

    public init(
        layout: PyramidLayout = .deepZoom(), encoding: ImageEncoding = .jpeg(quality: 75),
        jobs: Int = ProcessInfo.processInfo.activeProcessorCount,
        maximumPixelCount: Int = DecodeOptions.defaultMaximumPixelCount
    ) {
        self.layout = layout
        self.encoding = encoding
        self.jobs = jobs
        self.maximumPixelCount = maximumPixelCount
    }
}

/// What a build produced.
public struct PyramidSummary: Sendable {
    public var imageSize: PixelSize
    public var levels: Int
    /// Tile files written (IIIF's `full` aliases included).
    public var tiles: Int
    /// Bytes of tile files written.
    public var bytes: Int
    /// The most bytes of rows the levels held at once: proportional to the width, not the height.
    public var peakHeldRowBytes: Int
}

/// Builds a tile pyramid in one pass over the source, as libvips' `dzsave` does: rows stream from
/// the decoder (on its own thread) into the full-resolution level; each level keeps only the rows
/// its current row of tiles needs, cuts those tiles (encoded on `jobs` threads while decoding
/// continues) and shrinks each pair of rows 2×2 into the level below. Memory therefore grows with
/// the image's width, never its height.
///
/// Everything is written into a hidden temporary directory inside `outputDirectory` and moved into
/// place only when complete (the descriptor last), so a failed or interrupted build never leaves a
/// pyramid that looks whole.
public enum PyramidBuilder {
    public static func build(
        _ source: ImageSource, name: String, outputDirectory: String, options: PyramidOptions,
        progress: (@Sendable (Double) -> Void)? = nil
    ) throws -> PyramidSummary {
        let rows = try ImageRowReader(source, options: DecodeOptions(maximumPixelCount: options.maximumPixelCount))
        let size = rows.properties.size
        let layout = options.layout.layout(imageSize: size, name: name)
        let fileExtension = options.layout.fileExtension(for: options.encoding)
        let output = URL(fileURLWithPath: outputDirectory)
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        let staging = output.appendingPathComponent(".tessera-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        do {
            let summary = try write(rows, layout: layout, fileExtension: fileExtension, into: staging,
                                    options: options, progress: progress)
            try moveIntoPlace(layout.outputEntries, from: staging, to: output)
            try? FileManager.default.removeItem(at: staging)
            return summary
        } catch {
            try? FileManager.default.removeItem(at: staging)
            throw error
        }
    }

    private static func write(
        _ rows: ImageRowReader, layout: any TileLayout, fileExtension: String, into staging: URL,
        options: PyramidOptions, progress: (@Sendable (Double) -> Void)?
    ) throws -> PyramidSummary {
        let size = layout.imageSize
        let writer = TileWriter(root: staging, encoding: options.encoding, jobs: options.jobs)
        let padded = layout.paddedTileSize
        let format = rows.format
        let top = PyramidLevel(reduction: 0, layout: layout, format: format, levelCount: layout.levelCount) {
            reduction, column, row, pixels in
            var paths = [layout.tilePath(reduction: reduction, column: column, row: row, fileExtension: fileExtension)]
            paths += layout.aliasPaths(reduction: reduction, column: column, row: row, fileExtension: fileExtension)
            writer.submit(padded.map { Self.pad(pixels, to: $0) } ?? pixels, paths: paths)
        }
        var peakHeld = 0
        var delivered = 0
        let progressStep = max(1, size.height / 200)
        do {
            try rows.forEachRow { row in
                top.append(Array(row))
                delivered += 1
                if delivered % 64 == 0 { peakHeld = max(peakHeld, top.heldByteCount) }
                if delivered % progressStep == 0 { progress?(Double(delivered) / Double(size.height)) }
            }
        } catch {
            try? writer.finish()
            throw error
        }
        try writer.finish()
        for descriptor in layout.descriptors(fileExtension: fileExtension) {
            let url = staging.appendingPathComponent(descriptor.path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try descriptor.contents.write(to: url)
        }
        progress?(1)
        return PyramidSummary(imageSize: size, levels: layout.levelCount, tiles: writer.tileCount,
                              bytes: writer.byteCount, peakHeldRowBytes: peakHeld)
    }

    /// A tile placed at the top-left of a `size` canvas of background (white, transparent if there is alpha).
    static func pad(_ pixels: PixelBuffer, to size: PixelSize) -> PixelBuffer {
        guard pixels.size != size else { return pixels }
        let channels = pixels.format.bytesPerPixel
        var background = [UInt8](repeating: 255, count: channels)
        if let alpha = pixels.format.alphaChannelIndex { background[alpha] = 0 }
        var canvas = PixelBuffer(width: size.width, height: size.height, format: pixels.format,
                                 bytes: Array([[UInt8]](repeating: background, count: size.area).joined()))
        for y in 0..<pixels.height {
            let source = y * pixels.bytesPerRow
            canvas.bytes.replaceSubrange(y * canvas.bytesPerRow..<y * canvas.bytesPerRow + pixels.bytesPerRow,
                                         with: pixels.bytes[source..<source + pixels.bytesPerRow])
        }
        return canvas
    }

    /// Replaces any previous pyramid of the same name, entry by entry, descriptor last.
    private static func moveIntoPlace(_ entries: [String], from staging: URL, to output: URL) throws {
        let manager = FileManager.default
        for entry in entries {
            let destination = output.appendingPathComponent(entry)
            if manager.fileExists(atPath: destination.path) { try manager.removeItem(at: destination) }
            try manager.moveItem(at: staging.appendingPathComponent(entry), to: destination)
        }
    }
}
