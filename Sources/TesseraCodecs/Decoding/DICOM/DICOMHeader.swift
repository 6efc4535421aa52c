/// What a whole-slide reader takes from a DICOM instance's header: the elements before the pixel
/// data it names in ``DICOMTag``, every other stepped over, and where the pixel data starts.
struct DICOMHeader {
    var transferSyntax = ""
    var sopClass = ""
    var seriesUID = ""
    /// Image Type's third value: `VOLUME`, `LABEL`, `OVERVIEW`, `THUMBNAIL`.
    var imageFlavor = ""
    var dimensionOrganization = ""
    var samplesPerPixel = 0
    var photometric = ""
    var planarConfiguration = 0
    var numberOfFrames = 1
    var rows: Int?
    var columns: Int?
    var bitsAllocated = 0
    var totalColumns: Int?
    var totalRows: Int?
    /// Pixel Spacing's column spacing (between columns: across), in millimetres.
    var pixelSpacing: Double?
    var objectivePower: Double?
    var absentPixelCIELab: [Int]?
    var iccProfile: [UInt8]?
    /// Each frame's position in the matrix (1-based pixels), from the Per-Frame Functional Groups.
    var framePositions: [(column: Int, row: Int)]?
    /// Each frame's offset from the first fragment, from the Extended Offset Table.
    var extendedOffsets: [Int]?
    /// The offset of the pixel data's value: its first item (encapsulated) or first pixel.
    var pixelDataOffset = 0
    /// The pixel data's length when defined (uncompressed frames); nil when encapsulated.
    var pixelDataLength: Int?
    var fileByteCount = 0

    /// The most frames an instance may have: 2²² tiles of 256² is a 500,000² level.
    static let maximumFrameCount = 1 << 22
    /// The largest ICC profile kept.
    static let maximumProfileByteCount = 8 << 20

    /// The header of the DICOM file `source`, or nil once its series proves not to be `series`.
    static func read(_ source: ImageSource, series: String?) throws(ImageDecodingError) -> DICOMHeader? {
        let stream = try source.openStream()
        guard stream.length >= 132 else { throw .unknownFormat }
        stream.seek(to: 128)
        guard stream.read(4) == Array("DICM".utf8) else { throw .unknownFormat }
        var header = DICOMHeader(fileByteCount: stream.length)
        var reader = DICOMElementReader(stream: stream, explicitVR: true)
        // The file meta group is explicit VR little endian whatever the data set's syntax.
        while stream.length - stream.offset >= 8 {
            let start = stream.offset
            guard try stream.readLittleEndian16() == 0x0002 else {
                stream.seek(to: start)
                break
            }
            stream.seek(to: start)
            let element = try reader.nextElement()
            if element.tag == DICOMTag.transferSyntax { header.transferSyntax = try reader.text(element) } else { try reader.skip(element, depth: 0) }
        }
        reader.explicitVR = header.transferSyntax != DICOMFrameTable.Encoding.implicitLittleEndian
        while !stream.isAtEnd {
            let element = try reader.nextElement()
            if element.tag == DICOMTag.pixelData {
                header.pixelDataOffset = element.valueOffset
                header.pixelDataLength = element.length
                return header
            }
            if element.tag == DICOMTag.seriesInstance {
                header.seriesUID = try reader.text(element)
                if let series, header.seriesUID != series { return nil }
                continue
            }
            try header.take(element, from: reader)
        }
        throw .truncated(reason: "a DICOM file without pixel data")
    }

    /// Reads `element` into the header when it is one it keeps, else steps over it.
    private mutating func take(_ element: DICOMElementReader.Element, from reader: DICOMElementReader) throws(ImageDecodingError) {
        switch element.tag {
        case DICOMTag.imageType:
            let values = try reader.text(element).split(separator: "\\", omittingEmptySubsequences: false)
            imageFlavor = values.count > 2 ? String(values[2]).trimmingDICOMPadding : ""
        case DICOMTag.sopClass: sopClass = try reader.text(element)
        case DICOMTag.dimensionOrganizationType: dimensionOrganization = try reader.text(element)
        case DICOMTag.samplesPerPixel: samplesPerPixel = try reader.uint16(element) ?? 0
        case DICOMTag.photometricInterpretation: photometric = try reader.text(element)
        case DICOMTag.planarConfiguration: planarConfiguration = try reader.uint16(element) ?? 0
        case DICOMTag.numberOfFrames:
            guard let count = Int(try reader.text(element)), count > 0, count <= Self.maximumFrameCount else {
                throw .corrupt(reason: "a DICOM instance whose frame count is not one up to \(Self.maximumFrameCount)")
            }
            numberOfFrames = count
        case DICOMTag.rows: rows = try reader.uint16(element)
        case DICOMTag.columns: columns = try reader.uint16(element)
        case DICOMTag.bitsAllocated: bitsAllocated = try reader.uint16(element) ?? 0
        case DICOMTag.totalPixelMatrixColumns: totalColumns = try reader.int32(element)
        case DICOMTag.totalPixelMatrixRows: totalRows = try reader.int32(element)
        case DICOMTag.absentPixelCIELab: absentPixelCIELab = try reader.uint16s(element)
        case DICOMTag.sharedFunctionalGroups: try readSharedGroups(element, reader)
        case DICOMTag.perFrameFunctionalGroups: try readFramePositions(element, reader)
        case DICOMTag.opticalPath: try readOpticalPath(element, reader)
        case DICOMTag.extendedOffsetTable:
            let bytes = try reader.value(element, limit: 8 * Self.maximumFrameCount)
            extendedOffsets = stride(from: 0, to: bytes.count - 7, by: 8).map { start in
                bytes[start..<start + 8].reversed().reduce(0) { $0 << 8 | Int($1) }
            }
        default: try reader.skip(element, depth: 0)
        }
    }

    /// Pixel Measures' Pixel Spacing, in the first item of the shared groups.
    private mutating func readSharedGroups(_ sequence: DICOMElementReader.Element, _ reader: DICOMElementReader) throws(ImageDecodingError) {
        try reader.forEachElement(inItemsOf: sequence, depth: 1) { item, element throws(ImageDecodingError) in
            guard item == 0, element.tag == DICOMTag.pixelMeasures else { return try reader.skip(element, depth: 2) }
            try reader.forEachElement(inItemsOf: element, depth: 2) { _, measure throws(ImageDecodingError) in
                guard measure.tag == DICOMTag.pixelSpacing else { return try reader.skip(measure, depth: 3) }
                // Row spacing \ column spacing.
                let values = try reader.text(measure).split(separator: "\\")
                pixelSpacing = values.count > 1 ? Double(String(values[1]).trimmingDICOMPadding) : nil
            }
        }
    }

    /// Each frame's Plane Position (Slide): its column and row in the matrix.
    private mutating func readFramePositions(_ sequence: DICOMElementReader.Element, _ reader: DICOMElementReader) throws(ImageDecodingError) {
        var positions: [(column: Int, row: Int)] = []
        try reader.forEachItem(of: sequence, depth: 1) { index, end throws(ImageDecodingError) in
            guard index < Self.maximumFrameCount else { throw .corrupt(reason: "a DICOM instance with over \(Self.maximumFrameCount) frames") }
            var position = (column: 0, row: 0)
            try reader.forEachElement(until: end) { element throws(ImageDecodingError) in
                guard element.tag == DICOMTag.planePositionSlide else { return try reader.skip(element, depth: 2) }
                try reader.forEachElement(inItemsOf: element, depth: 2) { _, coordinate throws(ImageDecodingError) in
                    switch coordinate.tag {
                    case DICOMTag.columnPosition: position.column = try reader.int32(coordinate, signed: true) ?? 0
                    case DICOMTag.rowPosition: position.row = try reader.int32(coordinate, signed: true) ?? 0
                    default: try reader.skip(coordinate, depth: 3)
                    }
                }
            }
            positions.append(position)
        }
        framePositions = positions
    }

    /// The first optical path's ICC profile and objective lens power.
    private mutating func readOpticalPath(_ sequence: DICOMElementReader.Element, _ reader: DICOMElementReader) throws(ImageDecodingError) {
        try reader.forEachElement(inItemsOf: sequence, depth: 1) { item, element throws(ImageDecodingError) in
            switch (item, element.tag) {
            case (0, DICOMTag.iccProfile): iccProfile = try reader.value(element, limit: Self.maximumProfileByteCount)
            case (0, DICOMTag.objectiveLensPower): objectivePower = Double(try reader.text(element))
            default: try reader.skip(element, depth: 2)
            }
        }
    }
}

extension String {
    /// The text without leading and trailing spaces and NULs (DICOM's padding).
    var trimmingDICOMPadding: String {
        let padding: Set<Character> = [" ", "\0"]
        return String(drop { padding.contains($0) }.reversed().drop { padding.contains($0) }.reversed())
    }
}
