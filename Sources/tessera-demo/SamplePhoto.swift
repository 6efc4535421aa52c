import Tessera

/// Photo-like test pictures: a sky-to-ground gradient, soft blobs of colour, hard-edged shapes
/// and sensor noise, so that JPEG sizes and decode costs resemble real photos.
enum SamplePhoto {
    static func make(size: PixelSize, seed: UInt64) -> PixelBuffer {
        var random = SplitMix(seed)
        func color() -> (Double, Double, Double) { (random.unit() * 255, random.unit() * 255, random.unit() * 255) }
        let top = color(), bottom = color()
        let blobs = (0..<6).map { _ in
            (
                x: random.unit() * Double(size.width), y: random.unit() * Double(size.height),
                radius: (0.1 + random.unit() * 0.25) * Double(size.width), color: color()
            )
        }
        let boxes = (0..<4).map { _ in
            (
                x0: Int(random.unit() * Double(size.width)), y0: Int(random.unit() * Double(size.height)),
                width: Int((0.05 + random.unit() * 0.2) * Double(size.width)),
                height: Int((0.05 + random.unit() * 0.2) * Double(size.height)), color: color()
            )
        }
        var pixels = PixelBuffer(width: size.width, height: size.height, format: .rgb8)
        var row = [Double](repeating: 0, count: size.width * 3)
        pixels.bytes.withUnsafeMutableBufferPointer { bytes in
            for y in 0..<size.height {
                let t = Double(y) / Double(size.height)
                let base = (top.0 + (bottom.0 - top.0) * t, top.1 + (bottom.1 - top.1) * t, top.2 + (bottom.2 - top.2) * t)
                for x in 0..<size.width { row[x * 3] = base.0; row[x * 3 + 1] = base.1; row[x * 3 + 2] = base.2 }
                for blob in blobs {
                    let dy = Double(y) - blob.y
                    guard abs(dy) < blob.radius else { continue }
                    let halfWidth = (blob.radius * blob.radius - dy * dy).squareRoot()
                    let x0 = max(0, Int(blob.x - halfWidth)), x1 = min(size.width, Int(blob.x + halfWidth) + 1)
                    for x in x0..<max(x0, x1) {
                        let dx = Double(x) - blob.x
                        let weight = max(0, 1 - (dx * dx + dy * dy) / (blob.radius * blob.radius)) * 0.7
                        row[x * 3] += (blob.color.0 - row[x * 3]) * weight
                        row[x * 3 + 1] += (blob.color.1 - row[x * 3 + 1]) * weight
                        row[x * 3 + 2] += (blob.color.2 - row[x * 3 + 2]) * weight
                    }
                }
                for box in boxes where y >= box.y0 && y < box.y0 + box.height {
                    for x in box.x0..<min(size.width, box.x0 + box.width) {
                        row[x * 3] = box.color.0; row[x * 3 + 1] = box.color.1; row[x * 3 + 2] = box.color.2
                    }
                }
                let start = y * size.width * 3
                for index in 0..<size.width * 3 {
                    let noise = Double(random.next() & 15) - 7.5
                    bytes[start + index] = UInt8(max(0, min(255, row[index] + noise)))
                }
            }
        }
        return pixels
    }
}

struct SplitMix {
    private var state: UInt64
    init(_ seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
