import Foundation
import TesseraCodecs
import TesseraCore
import TesseraViewing
import Testing

@testable import TesseraTiles

@Suite("Building pyramids")
struct BuilderTests {
    let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("tessera-tiles-\(UUID().uuidString)")
    }

    /// An independent 2×2 mean with the last row and column repeated, as the spec describes.
    func halve(_ image: PixelBuffer) -> PixelBuffer {
        let width = (image.width + 1) / 2, height = (image.height + 1) / 2
        let channels = image.format.bytesPerPixel
        var bytes = [UInt8]()
        for y in 0..<height {
            for x in 0..<width {
                let xs = [2 * x, min(2 * x + 1, image.width - 1)], ys = [2 * y, min(2 * y + 1, image.height - 1)]
                for channel in 0..<channels {
                    var sum = 2
                    for sy in ys { for sx in xs { sum += Int(image.pixel(x: sx, y: sy)[image.pixel(x: sx, y: sy).startIndex + channel]) } }
                    bytes.append(UInt8(sum / 4))
                }
            }
        }
        return PixelBuffer(width: width, height: height, format: image.format, bytes: bytes)
    }

    // A JPEG's levels 1–3 are its DCT-scaled decodes instead (RegionLevelsTests checks them).
    @Test(
        "reassembled PNG tiles equal the source at full size and its 2×2 reductions below",
        arguments: ["photo-400x300.png", "photo-alpha-400x300.png", "png-adam7-rgb-8.png", "gif-single.gif"])
    func reassembly(name: String) async throws {
        let output = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: output) }
        let source = ImageSource.file(fixtures.appendingPathComponent(name).path)
        let options = PyramidOptions(layout: .deepZoom(tileSize: 64, overlap: 2), encoding: .png(), jobs: 2)
        let summary = try await PyramidBuilder.build(source, name: "p", outputDirectory: output.path, options: options)
        let layout = DeepZoomLayout(imageSize: summary.imageSize, name: "p", tileSize: 64, overlap: 2)
        var expected = try ImageDecoder().decode(source).pixels
        for reduction in 0..<layout.levelCount {
            let size = layout.levelSize(reduction: reduction)
            #expect(expected.size == size)
            for (row, rows) in layout.rowSpans(reduction: reduction).enumerated() {
                for (column, columns) in layout.columnSpans(reduction: reduction).enumerated() {
                    let path = output.appendingPathComponent(layout.tilePath(reduction: reduction, column: column, row: row, fileExtension: "png"))
                        .path
                    let tile = try ImageDecoder().decode(.file(path)).pixels
                    #expect(tile.size == PixelSize(width: columns.count, height: rows.count))
                    for (ty, y) in rows.enumerated() where ty % 7 == 0 || y == rows.upperBound - 1 {
                        for (tx, x) in columns.enumerated() {
                            #expect(tile.pixel(x: tx, y: ty) == expected.pixel(x: x, y: y), "level \(reduction) (\(x), \(y))")
                        }
                    }
                }
            }
            expected = halve(expected)
        }
        #expect(summary.tiles == layout.allTilePaths(fileExtension: "png").count)
    }

    @Test("IIIF info.json predicts exactly the tile files written")
    func iiifInfoPredictsFiles() async throws {
        let output = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: output) }
        let options = PyramidOptions(layout: .iiif(tileSize: 128, baseURL: "https://example.org/iiif/"), jobs: 2)
        _ = try await PyramidBuilder.build(
            .file(fixtures.appendingPathComponent("jpeg-exif-thumbnail.jpg").path),
            name: "img", outputDirectory: output.path, options: options)
        let info = try JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent("img/info.json"))) as! [String: Any]
        #expect(info["id"] as? String == "https://example.org/iiif/img")
        #expect(info["type"] as? String == "ImageService3" && info["profile"] as? String == "level0")
        let width = info["width"] as! Int, height = info["height"] as! Int
        let tiles = (info["tiles"] as! [[String: Any]])[0]
        let tw = tiles["width"] as! Int, th = tiles["height"] as! Int
        var predicted = Set<String>()
        for s in tiles["scaleFactors"] as! [Int] {
            for n in 0..<Int((Double(width) / Double(tw * s)).rounded(.up)) {
                for m in 0..<Int((Double(height) / Double(th * s)).rounded(.up)) {
                    let xr = n * tw * s, yr = m * th * s
                    let wr = min(tw * s, width - xr), hr = min(th * s, height - yr)
                    let ws = (wr + s - 1) / s, hs = (hr + s - 1) / s
                    predicted.insert("img/\(xr),\(yr),\(wr),\(hr)/\(ws),\(hs)/0/default.jpg")
                }
            }
        }
        for size in info["sizes"] as! [[String: Int]] {
            predicted.insert("img/full/\(size["width"]!),\(size["height"]!)/0/default.jpg")
        }
        let enumerator = FileManager.default.enumerator(atPath: output.path)!
        let written = Set(enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".jpg") })
        #expect(written == predicted)
        #expect((tiles["scaleFactors"] as! [Int]) == [1, 2, 4, 8])
    }

    @Test("XYZ tiles are whole tiles, padded past the image")
    func xyzPadding() async throws {
        let output = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: output) }
        let options = PyramidOptions(layout: .xyz(tileSize: 256), encoding: .png(), jobs: 1)
        let summary = try await PyramidBuilder.build(
            .file(fixtures.appendingPathComponent("photo-400x300.png").path),
            name: "m", outputDirectory: output.path, options: options)
        #expect(summary.levels == 2 && summary.tiles == 5)
        let corner = try ImageDecoder().decode(.file(output.appendingPathComponent("m/1/1/1.png").path)).pixels
        #expect(corner.size == PixelSize(width: 256, height: 256))
        #expect(Array(corner.pixel(x: 200, y: 200)) == [255, 255, 255])  // beyond the image: background
    }

    @Test("a truncated source fails with a typed error and leaves nothing behind")
    func truncatedLeavesNothing() async throws {
        let output = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: output) }
        await #expect(throws: ImageDecodingError.self) {
            try await PyramidBuilder.build(
                .file(fixtures.appendingPathComponent("broken-truncated.png").path),
                name: "t", outputDirectory: output.path, options: PyramidOptions())
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: output.path).isEmpty)
    }

    @Test("rows held grow with the width, not the height")
    func memoryFollowsWidth() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        func held(width: Int, height: Int) async throws -> Int {
            var pixels = PixelBuffer(width: width, height: height, format: .rgb8)
            for index in pixels.bytes.indices { pixels.bytes[index] = UInt8(truncatingIfNeeded: index * 7) }
            let path = directory.appendingPathComponent("\(width)x\(height).png")
            try ImageEncoder.encode(pixels, as: .png(compressionLevel: 1)).write(to: path)
            return try await PyramidBuilder.build(
                .file(path.path), name: "s\(width)x\(height)", outputDirectory: directory.path,
                options: PyramidOptions(layout: .deepZoom(tileSize: 64, overlap: 1), jobs: 1)
            )
            .peakHeldRowBytes
        }
        let short = try await held(width: 300, height: 400)
        let tall = try await held(width: 300, height: 4000)
        let wide = try await held(width: 3000, height: 400)
        #expect(tall <= short + short / 10)
        #expect(wide > 5 * short)
        #expect(tall < 300 * 4000 * 3 / 10)
    }
}

@Suite("Pyramid builds: cancellation and progress")
struct PyramidCancellationTests {
    @Test("a cancelled build stops, throws CancellationError and leaves nothing; progress ends at 1 when complete")
    func cancelled() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-cancel-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var pixels = PixelBuffer(width: 3000, height: 3000, format: .rgb8)
        for index in stride(from: 0, to: pixels.bytes.count, by: 7) { pixels.bytes[index] = UInt8(truncatingIfNeeded: index) }
        let source = directory.appendingPathComponent("big.png")
        try ImageEncoder.encode(pixels, as: .png(compressionLevel: 1)).write(to: source)
        let output = directory.appendingPathComponent("out")

        // The build pauses itself a third of the way through until the test has cancelled it, so
        // the cancellation lands mid-build however the machine schedules the two.
        let pause = PauseOnce()
        let started = WorkProgress { fraction in if fraction > 0.3 { pause.pause() } }
        let build = Task {
            try await PyramidBuilder.build(
                .file(source.path), name: "big", outputDirectory: output.path,
                options: PyramidOptions(encoding: .png()), progress: started)
        }
        while !pause.isPaused { try await Task.sleep(for: .milliseconds(1)) }
        build.cancel()
        pause.resume()
        await #expect(throws: CancellationError.self) { try await build.value }
        #expect(!started.isFinished)
        #expect(try FileManager.default.contentsOfDirectory(atPath: output.path).isEmpty)

        let progress = WorkProgress()
        _ = try await PyramidBuilder.build(
            .file(CLIFixtures.photo), name: "p", outputDirectory: output.path,
            options: PyramidOptions(), progress: progress)
        #expect(progress.isFinished && progress.fraction == 1)
    }
}

/// Holds the first thread that calls ``pause()`` until ``resume()``; later calls pass straight through.
private final class PauseOnce: Sendable {
    private let lock = ConditionLock()
    private nonisolated(unsafe) var state = 0  // 0 never paused, 1 paused, 2 resumed; under `lock`

    func pause() {
        lock.withLock {
            guard state == 0 else { return }
            state = 1
            while state == 1 { lock.wait() }
        }
    }

    var isPaused: Bool { lock.withLock { state == 1 } }
    func resume() {
        lock.withLock {
            state = 2; lock.broadcast()
        }
    }
}

private enum CLIFixtures {
    static let photo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/photo-400x300.png").path
}
