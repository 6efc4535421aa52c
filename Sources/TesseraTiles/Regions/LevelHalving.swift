import TesseraCore

/// The 2×2 mean every pyramid level is made with, one pair of rows at a time: shared by the
/// pyramid builder (``PyramidLevel``) and the region reader (``RegionLevels``), so that a level
/// made either way has the same bytes.
enum LevelHalving {
    /// Writes the 2×2 mean of `upper` and `lower` (`width` pixels of `channels` bytes each) to
    /// `output` (`(width + 1) / 2` pixels), rounding halves up. An odd width repeats its last
    /// column, as libvips does, so a level is always `(size + 1) / 2` of the one above.
    static func halve(
        _ upper: UnsafePointer<UInt8>, _ lower: UnsafePointer<UInt8>, width: Int, channels: Int,
        into output: UnsafeMutablePointer<UInt8>
    ) {
        let halfWidth = (width + 1) / 2
        for x in 0..<halfWidth {
            let left = 2 * x * channels
            let right = min(2 * x + 1, width - 1) * channels
            for channel in 0..<channels {
                let sum =
                    UInt16(upper[left + channel]) + UInt16(upper[right + channel])
                    + UInt16(lower[left + channel]) + UInt16(lower[right + channel])
                output[x * channels + channel] = UInt8((sum + 2) >> 2)
            }
        }
    }

    /// ``halve(_:_:width:channels:into:)`` of two row arrays.
    static func halve(_ upper: [UInt8], _ lower: [UInt8], width: Int, channels: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: (width + 1) / 2 * channels) { output, count in
            upper.withUnsafeBufferPointer { a in
                lower.withUnsafeBufferPointer { b in
                    halve(a.baseAddress!, b.baseAddress!, width: width, channels: channels, into: output.baseAddress!)
                }
            }
            count = (width + 1) / 2 * channels
        }
    }
}

/// Rows passed through `halvings` successive 2×2 halvings as they arrive, holding one row per
/// halving: the rows of a block of `size` (at most the image's bottom and right edge, else of
/// even size on every halving) come out as the rows of the level `halvings` below, exactly as
/// ``PyramidLevel`` makes them (an odd last row is halved with itself).
struct RowHalver {
    private let channels: Int
    /// Width and height of the rows each halving takes.
    private let sizes: [PixelSize]
    private var pending: [[UInt8]?]
    private var received: [Int]

    init(size: PixelSize, halvings: Int, channels: Int) {
        self.channels = channels
        var sizes = [size]
        for _ in 0..<halvings {
            let last = sizes[sizes.count - 1]
            sizes.append(PixelSize(width: (last.width + 1) / 2, height: (last.height + 1) / 2))
        }
        self.sizes = sizes
        pending = Array(repeating: nil, count: halvings)
        received = Array(repeating: 0, count: halvings)
    }

    /// The size of the rows that come out.
    var outputSize: PixelSize { sizes[sizes.count - 1] }

    /// Takes the next input row; calls `emit` with each output row it completes.
    mutating func append(_ row: UnsafeBufferPointer<UInt8>, emit: (UnsafeBufferPointer<UInt8>) -> Void) {
        // With no halving the row goes straight through, uncopied (a whole level's decode).
        guard !pending.isEmpty else { return emit(row) }
        append(Array(row), stage: 0, emit: emit)
    }

    private mutating func append(_ row: [UInt8], stage: Int, emit: (UnsafeBufferPointer<UInt8>) -> Void) {
        guard stage < pending.count else { return row.withUnsafeBufferPointer(emit) }
        received[stage] += 1
        let width = sizes[stage].width
        if let upper = pending[stage] {
            pending[stage] = nil
            append(LevelHalving.halve(upper, row, width: width, channels: channels), stage: stage + 1, emit: emit)
        } else if received[stage] == sizes[stage].height {
            append(LevelHalving.halve(row, row, width: width, channels: channels), stage: stage + 1, emit: emit)
        } else {
            pending[stage] = row
        }
    }
}
