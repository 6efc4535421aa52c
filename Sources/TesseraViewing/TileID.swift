import TesseraCore

/// One tile of a pyramid: its level (by reduction), column and row.
public struct TileID: Sendable, Hashable, CustomStringConvertible {
    /// The level: 0 is full resolution, each next one half the size.
    public var reduction: Int
    /// The column, from 0 at the left.
    public var column: Int
    /// The row, from 0 at the top.
    public var row: Int

    /// The tile at `column`, `row` of level `reduction`.
    public init(reduction: Int, column: Int, row: Int) {
        self.reduction = reduction
        self.column = column
        self.row = row
    }

    public var description: String { "\(reduction)/\(column)_\(row)" }
}

extension TileLayout {
    /// Each tile's core along one axis: where it is the tile to read from. With overlap, cores meet
    /// in the middle of the shared pixels, so every level pixel belongs to exactly one core.
    func cores(_ spans: [Range<Int>]) -> [Range<Int>] {
        spans.indices.map { index in
            let start = index == 0 ? spans[0].lowerBound : (spans[index - 1].upperBound + spans[index].lowerBound) / 2
            let end = index == spans.count - 1 ? spans[index].upperBound : (spans[index].upperBound + spans[index + 1].lowerBound) / 2
            return start..<end
        }
    }

    /// The tiles of a level whose cores meet `rect` (full-resolution pixels), widened by `ring`
    /// tiles on every side, ordered from the rectangle's centre outwards.
    public func tiles(reduction: Int, covering rect: ImageRect, ring: Int = 0) -> [TileID] {
        let factor = Double(1 << reduction)
        let columnCores = cores(columnSpans(reduction: reduction))
        let rowCores = cores(rowSpans(reduction: reduction))
        func indices(_ cores: [Range<Int>], _ low: Double, _ high: Double) -> ClosedRange<Int>? {
            let lower = cores.firstIndex { Double($0.upperBound) > low / factor }
            let upper = cores.lastIndex { Double($0.lowerBound) < high / factor }
            guard let lower, let upper, lower <= upper else { return nil }
            return max(0, lower - ring)...min(cores.count - 1, upper + ring)
        }
        guard let columns = indices(columnCores, rect.minX, rect.maxX), let rows = indices(rowCores, rect.minY, rect.maxY) else {
            return []
        }
        let centerX = (rect.minX + rect.maxX) / 2 / factor, centerY = (rect.minY + rect.maxY) / 2 / factor
        func distance(_ tile: TileID) -> Double {
            let column = columnCores[tile.column], row = rowCores[tile.row]
            let dx = Double(column.lowerBound + column.upperBound) / 2 - centerX
            let dy = Double(row.lowerBound + row.upperBound) / 2 - centerY
            return dx * dx + dy * dy
        }
        return rows.flatMap { row in columns.map { TileID(reduction: reduction, column: $0, row: row) } }
            .sorted { (distance($0), $0.row, $0.column) < (distance($1), $1.row, $1.column) }
    }
}
