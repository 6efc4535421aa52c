import FoundationEssentials
public import TesseraCodecs
public import TesseraCore
public import TesseraTiles

/// A procedural image whose native levels step by any factor (3: downsamples 1, 3, 9 …), each
/// stored in square tiles computed on demand: how an OME-TIFF with 3× levels or a slide with 4×
/// levels presents itself to a host, with pixels the tests know exactly (``levelPixels(_:)``).
/// Each level's blue channel starts at `60 × level`, so a region made from the wrong native level
/// shows in its mean.
public struct SteppedSource: TiledRegionSource {
    public let properties: ImageProperties
    public let nativeLevels: [NativeLevel]
    public var pixelFormat: PixelFormat { .rgb8 }
    public var holdsWholeImage: Bool { false }
    public let micronsPerPixel: Double?

    /// A `size` image with `levelCount` native levels `step` times smaller each (rounded up), in
    /// `tileSide`-pixel tiles; a microscope's scale when `micronsPerPixel` is given.
    public init(size: PixelSize, step: Int, levelCount: Int, tileSide: Int, micronsPerPixel: Double? = nil) {
        self.micronsPerPixel = micronsPerPixel
        properties = ImageProperties(format: .tiff, size: size, decodedFormat: .rgb8, fileByteCount: 0)
        var downsample = 1
        nativeLevels = (0..<levelCount).map { _ in
            defer { downsample *= step }
            let levelSize = PixelSize(width: (size.width + downsample - 1) / downsample, height: (size.height + downsample - 1) / downsample)
            return NativeLevel(size: levelSize, downsample: downsample, storedTileSize: PixelSize(width: tileSide, height: tileSide))
        }
    }

    /// Native level `level`, whole.
    public func levelPixels(_ level: Int) -> PixelBuffer {
        let size = nativeLevels[level].size
        return pixels(level: level, rect: PixelRect(x: 0, y: 0, width: size.width, height: size.height))
    }

    public func tile(level: Int, column: Int, row: Int, context: WorkContext) throws -> PixelBuffer {
        guard nativeLevels.indices.contains(level), let side = nativeLevels[level].storedTileSize?.width else {
            throw ImageDecodingError.corrupt(reason: "no level \(level)")
        }
        let size = nativeLevels[level].size
        let rect = PixelRect(x: column * side, y: row * side, width: side, height: side)
            .intersection(PixelRect(x: 0, y: 0, width: size.width, height: size.height))
        guard rect.width > 0, rect.height > 0 else { throw ImageDecodingError.corrupt(reason: "no tile \(column),\(row)") }
        return pixels(level: level, rect: rect)
    }

    /// Gradients across the level, a fine checker and a hash in blue over the level's base.
    private func pixels(level: Int, rect: PixelRect) -> PixelBuffer {
        let size = nativeLevels[level].size
        var bytes = [UInt8]()
        bytes.reserveCapacity(rect.width * rect.height * 3)
        for y in rect.y..<(rect.y + rect.height) {
            for x in rect.x..<(rect.x + rect.width) {
                let checker = (x / 8 + y / 8) % 2 == 0 ? 40 : 0
                bytes += [
                    UInt8(x * 200 / max(1, size.width - 1) + checker), UInt8(y * 200 / max(1, size.height - 1) + checker),
                    UInt8(60 * level + ((x ^ y) & 63)),
                ]
            }
        }
        return PixelBuffer(width: rect.width, height: rect.height, format: .rgb8, bytes: bytes)
    }
}

/// Files whose text is `tessera-stepped <width> <height> <step> <levels> <tile side>` opened as a
/// ``SteppedSource``: a kind a host registers, which nothing else names. Counts its opens, so a
/// test sees a source planned once however often it is asked for.
public final class SteppedSourceKind: RegionSourceKind {
    package let opens = Locked(0)

    public init() {}

    public var name: String { "tessera-stepped" }

    public var openCount: Int { opens.withLock { $0 } }

    public func open(_ input: RegionSourceInput, header: () throws -> ImageProperties) throws -> (any RegionSource)? {
        guard let path = input.input.filePath, let data = FileManager.default.contents(atPath: path),
            let text = String(data: data.prefix(128), encoding: .utf8), text.hasPrefix("tessera-stepped ")
        else { return nil }
        let numbers = text.split(whereSeparator: \.isWhitespace).dropFirst().compactMap { Int($0) }
        guard numbers.count == 5, numbers.allSatisfy({ $0 > 0 }) else {
            throw ImageDecodingError.corrupt(reason: "a stepped source needs width, height, step, levels and tile side")
        }
        opens.withLock { $0 += 1 }
        return SteppedSource(
            size: PixelSize(width: numbers[0], height: numbers[1]), step: numbers[2], levelCount: numbers[3], tileSide: numbers[4])
    }

    /// The file text of a stepped source.
    public static func fileText(size: PixelSize, step: Int, levelCount: Int, tileSide: Int) -> String {
        "tessera-stepped \(size.width) \(size.height) \(step) \(levelCount) \(tileSide)\n"
    }
}
