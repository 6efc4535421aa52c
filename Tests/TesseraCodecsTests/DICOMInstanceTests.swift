import Foundation
import TesseraCore
import Testing

@testable import TesseraCodecs

/// The DICOM reader on files written here byte by byte: the codings the pydicom twins of
/// Tests/Browser/test_slides.py do not reach (implicit VR with sequences of defined length, an
/// explicit `UN` holding an implicit sequence, frames split over fragments with no offset table,
/// the Extended Offset Table), and hostile headers.
@Suite struct DICOMInstanceTests {
    /// A DICOM Part 10 file: preamble, meta group (explicit VR LE), then the data set's elements
    /// as given (already coded for the file's syntax).
    struct Writer {
        var explicitVR: Bool
        var bytes: [UInt8] = []

        static func tag(_ tag: UInt32) -> [UInt8] {
            let group = UInt16(tag >> 16), element = UInt16(tag & 0xFFFF)
            return [UInt8(group & 0xFF), UInt8(group >> 8), UInt8(element & 0xFF), UInt8(element >> 8)]
        }

        static func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        static func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF)] }

        /// One element, `vr` used only when the syntax is explicit; nil `value` for an undefined length.
        func element(_ tag: UInt32, _ vr: String, _ value: [UInt8]?) -> [UInt8] {
            let length = value.map(\.count) ?? 0xFFFF_FFFF
            var out = Self.tag(tag)
            if explicitVR {
                out += Array(vr.utf8)
                if ["OB", "OW", "SQ", "UN", "UT", "UC", "OV"].contains(vr) { out += [0, 0] + Self.le32(length) } else { out += Self.le16(length) }
            } else {
                out += Self.le32(length)
            }
            return out + (value ?? [])
        }

        func text(_ tag: UInt32, _ vr: String, _ string: String) -> [UInt8] {
            var value = Array(string.utf8)
            if value.count % 2 == 1 { value.append(vr == "UI" ? 0 : 0x20) }
            return element(tag, vr, value)
        }

        /// A sequence of defined length with one item of defined length.
        func sequence(_ tag: UInt32, items: [[UInt8]]) -> [UInt8] {
            element(tag, "SQ", items.flatMap { Self.tag(DICOMTag.item) + Self.le32($0.count) + $0 })
        }

        static func file(syntax: String, explicitVR: Bool, body: (Writer) -> [UInt8]) -> Data {
            let meta = Writer(explicitVR: true)
            let syntaxElement = meta.text(DICOMTag.transferSyntax, "UI", syntax)
            let group = meta.element(0x0002_0000, "UL", le32(syntaxElement.count)) + syntaxElement
            return Data([UInt8](repeating: 0, count: 128) + Array("DICM".utf8) + group + body(Writer(explicitVR: explicitVR)))
        }
    }

    /// The attributes every test slide has: 32×16 pixels in 16×16 tiles, RGB, 0.5 µm per pixel.
    static func common(_ w: Writer, frames: Int, photometric: String = "RGB", sop: String = DICOMInstance.wholeSlideSOPClass) -> [UInt8] {
        w.text(DICOMTag.imageType, "CS", "ORIGINAL\\PRIMARY\\VOLUME\\NONE") + w.text(DICOMTag.sopClass, "UI", sop)
            + w.text(DICOMTag.seriesInstance, "UI", "1.2.3") + w.element(DICOMTag.samplesPerPixel, "US", Writer.le16(3))
            + w.text(DICOMTag.photometricInterpretation, "CS", photometric) + w.element(DICOMTag.planarConfiguration, "US", Writer.le16(0))
            + w.text(DICOMTag.numberOfFrames, "IS", "\(frames)") + w.element(DICOMTag.rows, "US", Writer.le16(16))
            + w.element(DICOMTag.columns, "US", Writer.le16(16)) + w.element(DICOMTag.bitsAllocated, "US", Writer.le16(8))
            + w.element(DICOMTag.totalPixelMatrixColumns, "UL", Writer.le32(32)) + w.element(DICOMTag.totalPixelMatrixRows, "UL", Writer.le32(16))
    }

    static func spacing(_ w: Writer) -> [UInt8] {
        w.sequence(
            DICOMTag.sharedFunctionalGroups,
            items: [w.sequence(DICOMTag.pixelMeasures, items: [w.text(DICOMTag.pixelSpacing, "DS", "0.0005\\0.0005")])])
    }

    /// Two 16×16 tiles: left red, right blue.
    static let tiles: [PixelBuffer] = [[200, 30, 40], [20, 60, 220]].map { color in
        PixelBuffer(width: 16, height: 16, format: .rgb8, bytes: Array((0..<256).map { _ in color }.joined()))
    }

    static func instance(_ data: Data) throws -> DICOMInstance {
        try #require(try DICOMInstance.read(.data(data), options: DecodeOptions()))
    }

    @Test func anImplicitVRFileIsReadThroughItsSequencesOfDefinedLength() throws {
        let data = Writer.file(syntax: "1.2.840.10008.1.2", explicitVR: false) { w in
            Self.common(w, frames: 2) + Self.spacing(w) + w.element(DICOMTag.pixelData, "OB", Self.tiles.flatMap(\.bytes))
        }
        let instance = try Self.instance(data)
        #expect(instance.size == PixelSize(width: 32, height: 16) && instance.tileSize == PixelSize(width: 16, height: 16))
        #expect(instance.flavor == .volume && instance.seriesUID == "1.2.3")
        #expect(instance.micronsPerPixel == 0.5)
        #expect(try instance.tile(column: 1, row: 0)?.bytes == Self.tiles[1].bytes)
        #expect(try instance.tile(column: 2, row: 0) == nil)
        // Uncompressed frames are no JPEG to pass through.
        #expect(try instance.storedTile(column: 0, row: 0) == nil)
    }

    @Test func anExplicitUNOfUndefinedLengthIsAnImplicitSequenceSteppedOver() throws {
        let implicit = Writer(explicitVR: false)
        // Items of undefined length holding implicit elements, one an undefined-length sequence.
        let inner =
            implicit.element(0x0009_1001, "UN", nil) + Writer.tag(DICOMTag.item) + Writer.le32(0xFFFF_FFFF)
            + implicit.text(0x0009_1002, "LO", "private") + Writer.tag(DICOMTag.itemDelimiter) + Writer.le32(0)
            + Writer.tag(DICOMTag.sequenceDelimiter) + Writer.le32(0)
        let data = Writer.file(syntax: "1.2.840.10008.1.2.1", explicitVR: true) { w in
            let unknown =
                w.element(0x0009_1000, "UN", nil) + Writer.tag(DICOMTag.item) + Writer.le32(0xFFFF_FFFF) + inner
                + Writer.tag(DICOMTag.itemDelimiter) + Writer.le32(0) + Writer.tag(DICOMTag.sequenceDelimiter) + Writer.le32(0)
            return Self.common(w, frames: 2) + unknown + Self.spacing(w) + w.element(DICOMTag.pixelData, "OB", Self.tiles.flatMap(\.bytes))
        }
        let instance = try Self.instance(data)
        #expect(instance.micronsPerPixel == 0.5, "the elements after the private sequence were not found")
        #expect(try instance.tile(column: 0, row: 0)?.bytes == Self.tiles[0].bytes)
    }

    /// Encapsulated pixel data: an empty or given offset table, each frame in `split` fragments.
    static func encapsulated(_ w: Writer, frames: [[UInt8]], split: Int, table: [Int]? = nil) -> [UInt8] {
        var out = Writer.tag(DICOMTag.pixelData) + Array("OB".utf8) + [0, 0] + Writer.le32(0xFFFF_FFFF)
        let offsets = table ?? []
        out += Writer.tag(DICOMTag.item) + Writer.le32(4 * offsets.count) + offsets.flatMap(Writer.le32)
        for frame in frames {
            let piece = (frame.count + split - 1) / split
            for start in stride(from: 0, to: frame.count, by: piece) {
                var fragment = Array(frame[start..<min(frame.count, start + piece)])
                if fragment.count % 2 == 1 { fragment.append(0) }
                out += Writer.tag(DICOMTag.item) + Writer.le32(fragment.count) + fragment
            }
        }
        return out + Writer.tag(DICOMTag.sequenceDelimiter) + Writer.le32(0)
    }

    static func jpegFrames() throws -> [[UInt8]] {
        try tiles.map { [UInt8](try ImageEncoder.encode($0, as: .jpeg(quality: 95))) }
    }

    @Test func framesSplitOverFragmentsWithNoOffsetTableAreFoundByTheirStartMarkers() throws {
        let frames = try Self.jpegFrames()
        let data = Writer.file(syntax: "1.2.840.10008.1.2.4.50", explicitVR: true) { w in
            Self.common(w, frames: 2, photometric: "YBR_FULL_422") + Self.encapsulated(w, frames: frames, split: 3)
        }
        let instance = try Self.instance(data)
        for (column, frame) in frames.enumerated() {
            let expected = try ImageDecoder().decode(.data(Data(frame))).pixels
            #expect(try instance.tile(column: column, row: 0)?.bytes == expected.bytes)
            // The stored tile is the frame's fragments joined (padding kept: after EOI, ignored).
            let stored = try #require(try instance.storedTile(column: column, row: 0))
            #expect(stored.starts(with: frame))
        }
    }

    @Test func theBasicOffsetTableFindsFramesOfSeveralFragments() throws {
        let frames = try Self.jpegFrames()
        // Offsets from the first fragment's item header: frame 1 starts after frame 0's two items.
        let firstFrameItems = Self.encapsulated(Writer(explicitVR: true), frames: [frames[0]], split: 2).count - 12 - 8 - 8
        let data = Writer.file(syntax: "1.2.840.10008.1.2.4.50", explicitVR: true) { w in
            Self.common(w, frames: 2, photometric: "YBR_FULL_422") + Self.encapsulated(w, frames: frames, split: 2, table: [0, firstFrameItems])
        }
        let instance = try Self.instance(data)
        let expected = try ImageDecoder().decode(.data(Data(frames[1]))).pixels
        #expect(try instance.tile(column: 1, row: 0)?.bytes == expected.bytes)
    }

    @Test func sparseFramesAreTheTilesTheirPositionsName() throws {
        let w = Writer(explicitVR: true)
        // One frame, at the right-hand tile (pixel 17, 1-based).
        let position = w.element(DICOMTag.columnPosition, "SL", Writer.le32(17)) + w.element(DICOMTag.rowPosition, "SL", Writer.le32(1))
        let perFrame = w.sequence(DICOMTag.perFrameFunctionalGroups, items: [w.sequence(DICOMTag.planePositionSlide, items: [position])])
        let data = Writer.file(syntax: "1.2.840.10008.1.2.1", explicitVR: true) { w in
            Self.common(w, frames: 1) + w.text(DICOMTag.dimensionOrganizationType, "CS", "TILED_SPARSE")
                + w.element(DICOMTag.absentPixelCIELab, "US", Writer.le16(65535) + Writer.le16(32896) + Writer.le16(32896))
                + perFrame + w.element(DICOMTag.pixelData, "OB", Self.tiles[1].bytes)
        }
        let instance = try Self.instance(data)
        #expect(instance.frameIndex(column: 0, row: 0) == nil && instance.frameIndex(column: 1, row: 0) == 0)
        #expect(try instance.tile(column: 0, row: 0) == nil)
        #expect(try instance.tile(column: 1, row: 0)?.bytes == Self.tiles[1].bytes)
        // L* 100, a* and b* 0: white.
        #expect(instance.background == [255, 255, 255])
    }

    @Test func theBackgroundIsTheCIELabValueInSRGB() {
        // L* 50, a* 0, b* 0: sRGB's mid grey (119); a* and b* both coded 0 read as neutral.
        #expect(DICOMInstance.sRGB(lab: [32768, 32896, 32896]).map { $0.map(Int.init) } == [119, 119, 119])
        #expect(DICOMInstance.sRGB(lab: [65535, 0, 0]) == [255, 255, 255])
        // A red: a* 60, b* 40 at L* 50.
        let red = DICOMInstance.sRGB(lab: [32768, Int((188.0 / 255 * 65535).rounded()), Int((168.0 / 255 * 65535).rounded())])
        #expect(red.map { $0[0] > 180 && $0[1] < 80 && $0[2] < 80 } == true)
        #expect(DICOMInstance.sRGB(lab: [1]) == nil)
    }

    @Test func hostileHeadersAreTypedErrors() throws {
        let notDICOM = Data(repeating: 0, count: 300)
        #expect(throws: ImageDecodingError.unknownFormat) { try DICOMInstance.read(.data(notDICOM), options: DecodeOptions()) }
        let ct = Writer.file(syntax: "1.2.840.10008.1.2.1", explicitVR: true) { w in
            Self.common(w, frames: 2, sop: "1.2.840.10008.5.1.4.1.1.2") + w.element(DICOMTag.pixelData, "OB", Self.tiles.flatMap(\.bytes))
        }
        #expect {
            try DICOMInstance.read(.data(ct), options: DecodeOptions())
        } throws: { error in
            if case .unsupported = error as? ImageDecodingError { return true }
            return false
        }
        // A length past the end, sequences nested deeper than any slide's, a frame count of zero,
        // too few uncompressed frames: each an error, none a crash.
        let cases: [Data] = [
            Writer.file(syntax: "1.2.840.10008.1.2.1", explicitVR: true) { w in
                Self.common(w, frames: 2) + Writer.tag(0x0010_0010) + Array("LO".utf8) + [0xFF, 0x7F]
            },
            Writer.file(syntax: "1.2.840.10008.1.2.1", explicitVR: true) { w in
                var nested = w.text(0x0010_0010, "LO", "deep")
                for _ in 0..<20 { nested = w.element(0x0040_0555, "SQ", nil) + Writer.tag(DICOMTag.item) + Writer.le32(0xFFFF_FFFF) + nested }
                return Self.common(w, frames: 2) + nested
            },
            Writer.file(syntax: "1.2.840.10008.1.2.1", explicitVR: true) { w in
                Self.common(w, frames: 0) + w.element(DICOMTag.pixelData, "OB", Self.tiles.flatMap(\.bytes))
            },
            Writer.file(syntax: "1.2.840.10008.1.2.1", explicitVR: true) { w in
                Self.common(w, frames: 2) + w.element(DICOMTag.pixelData, "OB", Self.tiles[0].bytes)
            },
            Writer.file(syntax: "1.2.840.10008.1.2.4.50", explicitVR: true) { w in
                // Compressed frames whose pixel data is not encapsulated.
                Self.common(w, frames: 2, photometric: "YBR_FULL_422") + w.element(DICOMTag.pixelData, "OB", [0xFF, 0xD8])
            },
        ]
        for data in cases {
            #expect(throws: ImageDecodingError.self) { try DICOMInstance.read(.data(data), options: DecodeOptions()) }
        }
    }

    @Test func aFileOfAnotherSeriesIsLeftAtItsSeriesUID() throws {
        let data = Writer.file(syntax: "1.2.840.10008.1.2.1", explicitVR: true) { w in
            // Broken after the series UID: never read when the series is another.
            Self.common(w, frames: 2) + [0x10, 0x00]
        }
        #expect(try DICOMInstance.read(.data(data), options: DecodeOptions(), series: "9.9") == nil)
    }
}
