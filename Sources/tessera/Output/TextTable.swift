/// Columns padded to their widest cell, for terminal output.
struct TextTable {
    let header: [String]
    let rows: [[String]]
    /// Column indices aligned to the right (numbers).
    var rightAligned: Set<Int> = []

    var rendered: String {
        let widths = header.indices.map { column in
            ([header] + rows).map { $0[column].count }.max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                return rightAligned.contains(column) ? padding + cell : cell + padding
            }.joined(separator: "  ").replacing(/\s+$/, with: "")
        }
        return ([line(header)] + rows.map(line)).joined(separator: "\n")
    }
}
