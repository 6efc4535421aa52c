// The grid experiment behind Tessera: 100 photos shown in 100×100-point cells on a 3x screen,
// loaded once by decoding them whole and once downsampled while decoding.
// Usage: tessera-demo DIR [COUNT] [--generate-only]   (photos are generated into DIR on the first run)
import Foundation
import Tessera

let arguments = CommandLine.arguments
let directory = arguments.count > 1 ? arguments[1] : "demo-out/photos"
let count = arguments.count > 2 ? Int(arguments[2]) ?? 100 : 100  // a non-number (a flag) means 100
let photoSize = PixelSize(width: 4032, height: 3024)  // a 12-megapixel phone photo
let cell = PointSize(width: 100, height: 100)
let scale = DisplayScale.x3

try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
let paths = (0..<count).map { "\(directory)/photo-\(String(format: "%03d", $0)).jpg" }
let missing = paths.enumerated().filter { !FileManager.default.fileExists(atPath: $0.element) }
if !missing.isEmpty {
    print("Generating \(missing.count) photo-like \(photoSize) JPEGs in \(directory) …")
    for (index, path) in missing {
        let pixels = SamplePhoto.make(size: photoSize, seed: UInt64(index + 1))
        try ImageEncoder.encode(pixels, as: .jpeg(quality: 85)).write(to: URL(fileURLWithPath: path))
    }
}

func measure(_ label: String, _ load: (String) throws -> PixelBuffer) throws -> (bytes: Int, seconds: Double) {
    let start = ContinuousClock.now
    var bytes = 0
    for path in paths { bytes += try load(path).byteCount }
    let elapsed = ContinuousClock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return (bytes, seconds)
}

if arguments.contains("--generate-only") { exit(0) }

let cellPixels = cell.pixels(at: scale)
print(
    "\n\(count) photos of \(photoSize) in \(Int(cell.width))×\(Int(cell.height))-point cells at \(Int(scale.value))x "
        + "(\(cellPixels) pixels each):")
let full = try measure("full decode") { try ImageDecoder().decode(.file($0)).pixels }
let options = ThumbnailOptions(pointSize: cell, scale: scale)
let small = try measure("downsampled") { try Thumbnailer().thumbnail(.file($0), options: options).pixels }
let perFull = full.bytes / count, perSmall = small.bytes / count
func megabytes(_ bytes: Int) -> String { String(format: "%9.1f MB", Double(bytes) / 1e6) }
print("  full decode:  \(megabytes(full.bytes)) decoded (\(megabytes(perFull)) a photo)  in \(String(format: "%.1f", full.seconds)) s")
print("  downsampled:  \(megabytes(small.bytes)) decoded (\(megabytes(perSmall)) a photo)  in \(String(format: "%.1f", small.seconds)) s")
print(
    String(
        format: "  ratio:        %.0f× less memory, %.1f× faster", Double(full.bytes) / Double(small.bytes),
        full.seconds / small.seconds))
