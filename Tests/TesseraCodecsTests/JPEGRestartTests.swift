import Foundation
import TesseraCore
import Testing

@testable import TesseraCodecs

#if canImport(Glibc)
    import Glibc
#endif

/// JPEGs with restart markers entered in the middle: the splice starts at the restart interval
/// the markers allow, and a window read that way is pixel for pixel the window of a whole decode,
/// at every DCT scale.
@Suite("JPEGs entered at a restart marker")
struct JPEGRestartTests {
    static let files = ["jpeg-restart-rows.jpg", "jpeg-restart-blocks.jpg", "jpeg-restart-444.jpg"]

    static func splice(_ name: String, row: Int) throws -> JPEGRestartSplice? {
        let file = try #require(fopen(Fixtures.path(name), "rb"))
        defer { fclose(file) }
        return JPEGRestartSplice.find(in: file, startingAtOrAbove: row)
    }

    @Test func theSpliceStartsAtTheLowestRestartIntervalAtOrAboveTheRow() throws {
        // 4:2:0, an interval per MCU row (16 px): the MCU row holding the row.
        #expect(try Self.splice("jpeg-restart-rows.jpg", row: 200)?.firstRow == 192)
        #expect(try Self.splice("jpeg-restart-rows.jpg", row: 399)?.firstRow == 384)
        // 30 MCUs a row, intervals of 7: every 7th MCU row starts one (MCU rows 7, 14, 21).
        #expect(try Self.splice("jpeg-restart-blocks.jpg", row: 200)?.firstRow == 7 * 16)
        #expect(try Self.splice("jpeg-restart-blocks.jpg", row: 399)?.firstRow == 21 * 16)
        // 4:4:4 (8-px MCUs), intervals of 3 MCU rows.
        #expect(try Self.splice("jpeg-restart-444.jpg", row: 200)?.firstRow == 192)
        // Within the first interval, or without restart markers: nothing to enter.
        #expect(try Self.splice("jpeg-restart-rows.jpg", row: 15) == nil)
        #expect(try Self.splice("jpeg-restart-blocks.jpg", row: 100) == nil)
        #expect(try Self.splice("jpeg-baseline.jpg", row: 40) == nil)
        #expect(try Self.splice("jpeg-progressive.jpg", row: 40) == nil)
        // The markers after the one entered are renumbered from RST0.
        let entered = try #require(try Self.splice("jpeg-restart-rows.jpg", row: 200))
        #expect(entered.markerShift == 12 % 8)
    }

    static let windows = [
        PixelRect(x: 0, y: 200, width: 480, height: 40), PixelRect(x: 300, y: 330, width: 180, height: 70),
        PixelRect(x: 17, y: 113, width: 61, height: 99), PixelRect(x: 0, y: 399, width: 480, height: 1),
    ]

    @Test(arguments: files, [0, 1, 2, 3])
    func aWindowReadFromARestartMarkerIsTheWholeDecodesWindow(_ name: String, reduction: Int) throws {
        let reader = try ImageRowReader(.file(Fixtures.path(name)), options: DecodeOptions(), reduction: reduction)
        var whole: [[UInt8]] = []
        try reader.forEachRow { whole.append(Array($0)) }
        for full in Self.windows {
            let scale = 1 << reduction
            let window = PixelRect(x: full.x / scale, y: full.y / scale, width: max(1, full.width / scale), height: max(1, full.height / scale))
            var rows: [[UInt8]] = []
            try reader.forEachRow(in: window) { rows.append(Array($0)) }
            let channels = reader.format.bytesPerPixel
            let expected = whole[window.y..<(window.y + window.height)].map {
                Array($0[(window.x * channels)..<((window.x + window.width) * channels)])
            }
            let same = rows == expected  // (not in the expectation: it would print every pixel)
            #expect(same, "\(name) at 1/\(scale), window \(window)")
            // And it was entered at a restart marker, 32 rows (the margin) or more above the window.
            let header = try Header(.file(Fixtures.path(name)), options: DecodeOptions())
            let scanlines = try #require(
                try header.scanlineReader(options: DecodeOptions(), reduction: scale.trailingZeroBitCount, window: window)
                    as? JPEGScanlineReader)
            let expectedEntry =
                try Self.splice(name, row: max(0, window.y - JPEGScanlineReader.windowMargin) * scale).map { $0.firstRow / scale } ?? 0
            #expect(scanlines.enteredAtRow == expectedEntry)
            if name == "jpeg-restart-rows.jpg", window.y >= 64 { #expect(scanlines.enteredAtRow > 0) }
        }
    }
}
