import FoundationEssentials
import TesseraCore

/// Where each frame of a DICOM instance lies and how its bytes decode. Uncompressed frames follow
/// one another; encapsulated ones (PS3.5 A.4) are items after a Basic Offset Table: a frame is
/// found through the Extended Offset Table, else the Basic one, else (an empty table, as many
/// writers leave it) by one walk over the fragments' 8-byte item headers on the first read,
/// kept after. A frame is the fragments from its first to the next frame's.
final class DICOMFrameTable: Sendable {
    /// How frames are coded: the transfer syntax, with what the photometric interpretation adds.
    enum Encoding: Sendable, Equatable {
        /// JPEG baseline; `codedAsRGB` when the components are R, G, B (Photometric `RGB`), which
        /// a JPEG reader assumes only when told (Adobe APP14).
        case jpeg(codedAsRGB: Bool)
        /// JPEG 2000 (or HTJ2K) codestreams; `samplesAreYCbCr` when the samples are Y, Cb, Cr
        /// without the codestream's own transform (Photometric `YBR_FULL`).
        case jpeg2000(samplesAreYCbCr: Bool)
        /// Uncompressed, interleaved.
        case native

        static let implicitLittleEndian = "1.2.840.10008.1.2"

        init(transferSyntax: String, photometric: String, planar: Int) throws(ImageDecodingError) {
            switch transferSyntax {
            case Self.implicitLittleEndian, "1.2.840.10008.1.2.1":
                guard planar == 0, ["RGB", "MONOCHROME2"].contains(photometric) else {
                    throw .unsupported(reason: "uncompressed DICOM frames of \(photometric.prefix(16)), planar configuration \(planar)")
                }
                self = .native
            case "1.2.840.10008.1.2.4.50": self = .jpeg(codedAsRGB: photometric == "RGB")
            case "1.2.840.10008.1.2.4.90", "1.2.840.10008.1.2.4.91", "1.2.840.10008.1.2.4.201", "1.2.840.10008.1.2.4.202",
                "1.2.840.10008.1.2.4.203":
                self = .jpeg2000(samplesAreYCbCr: photometric == "YBR_FULL" || photometric == "YBR_FULL_422")
            default:
                throw .unsupported(reason: "DICOM frames in transfer syntax \(transferSyntax.prefix(64))")
            }
        }

        /// `bytes` (one frame) decoded to `format`, at least `tileSize`.
        func decode(_ bytes: [UInt8], tileSize: PixelSize, format: PixelFormat) throws(ImageDecodingError) -> PixelBuffer {
            let decoded: PixelBuffer
            switch self {
            case .native:
                return PixelBuffer(width: tileSize.width, height: tileSize.height, format: format, bytes: bytes)
            case .jpeg(let codedAsRGB):
                let stream = codedAsRGB ? JPEGTileSplice.file(tile: bytes, tables: nil, codedAsRGB: true, profile: nil) : bytes
                guard let stream else { throw .corrupt(reason: "a DICOM frame that is no JPEG stream") }
                decoded = try Self.decoder(tileSize, samplesAreYCbCr: false).decode(.data(Data(stream))).pixels
            case .jpeg2000(let samplesAreYCbCr):
                decoded = try Self.decoder(tileSize, samplesAreYCbCr: samplesAreYCbCr).decode(.data(Data(bytes))).pixels
            }
            guard decoded.width >= tileSize.width, decoded.height >= tileSize.height else {
                throw .corrupt(reason: "a DICOM frame decoded to \(decoded.width)×\(decoded.height), not its \(tileSize.width)×\(tileSize.height)")
            }
            return decoded.format == format ? decoded : decoded.converted(to: format)
        }

        /// A decoder for one frame: room for a codec's planes beside its pixels (a frame claiming
        /// more is refused), colour kept as coded (the instance converts it).
        private static func decoder(_ tileSize: PixelSize, samplesAreYCbCr: Bool) -> ImageDecoder {
            var options = DecodeOptions(maximumPixelCount: 4 * tileSize.width * tileSize.height)
            options.colorManagement = .keepSourceProfile
            options.jpeg2000SamplesAreYCbCr = samplesAreYCbCr
            return ImageDecoder(options: options)
        }
    }

    private enum Layout {
        case native(offset: Int, frameByteCount: Int)
        /// Frames' offsets from the first fragment's item header, when a table gives them.
        case encapsulated(firstFragment: Int, offsets: [Int]?)
    }

    let fileByteCount: Int
    let source: ImageSource
    private let frameCount: Int
    private let layout: Layout
    private let isJPEG: Bool
    /// The frames' offsets found by walking the fragments, once.
    private let walked = Locked<[Int]?>(nil)

    /// The largest frame read: a 4096² RGB tile uncompressed, with room to spare.
    static let maximumFrameByteCount = 64 << 20

    init(_ source: ImageSource, header: DICOMHeader, encoding: Encoding, frameByteCount: Int) throws(ImageDecodingError) {
        self.source = source
        fileByteCount = header.fileByteCount
        frameCount = header.numberOfFrames
        isJPEG = if case .jpeg = encoding { true } else { false }
        if encoding == .native {
            guard let length = header.pixelDataLength, length / frameByteCount >= frameCount else {
                throw .truncated(reason: "uncompressed DICOM pixel data shorter than its \(frameCount) frames")
            }
            layout = .native(offset: header.pixelDataOffset, frameByteCount: frameByteCount)
            return
        }
        guard header.pixelDataLength == nil else { throw .corrupt(reason: "compressed DICOM pixel data that is not encapsulated") }
        let stream = try source.openStream()
        stream.seek(to: header.pixelDataOffset)
        let table = try Self.item(stream)
        guard let tableLength = table, tableLength <= 4 * Self.maximumFrameByteCount else {
            throw .corrupt(reason: "encapsulated DICOM pixel data without its offset table")
        }
        let basic = try stream.readExactly(tableLength)
        let first = header.pixelDataOffset + 8 + tableLength
        let basicOffsets = stride(from: 0, to: basic.count - 3, by: 4).map { start in
            Int(basic[start]) | Int(basic[start + 1]) << 8 | Int(basic[start + 2]) << 16 | Int(basic[start + 3]) << 24
        }
        let frameCount = frameCount
        let offsets = [header.extendedOffsets, basicOffsets].compactMap { $0 }.first { $0.count == frameCount }
        layout = .encapsulated(firstFragment: first, offsets: offsets)
    }

    /// The bytes of frame `index` (from 0).
    func frame(_ index: Int) throws(ImageDecodingError) -> [UInt8] {
        guard index >= 0, index < frameCount else { throw .corrupt(reason: "DICOM frame \(index) of \(frameCount)") }
        let stream = try source.openSparseStream()
        switch layout {
        case .native(let offset, let frameByteCount):
            stream.seek(to: offset + index * frameByteCount)
            let frame = stream.readSparse(frameByteCount)
            guard frame.count == frameByteCount else { throw stream.readFailure ?? .truncated(reason: "a DICOM frame ends past the end of the file") }
            return frame
        case .encapsulated(let first, let tabled):
            let offsets: [Int]
            if let tabled { offsets = tabled } else { offsets = try walkedOffsets(stream, first: first) }
            let end = index + 1 < offsets.count ? first + offsets[index + 1] : nil
            stream.seek(to: first + offsets[index])
            var bytes: [UInt8] = []
            repeat {
                guard let length = try Self.item(stream) else { break }
                guard bytes.count + length <= Self.maximumFrameByteCount else { throw .corrupt(reason: "a DICOM frame over the size limit") }
                let value = stream.readSparse(length)
                guard value.count == length else { throw stream.readFailure ?? .truncated(reason: "a DICOM frame ends past the end of the file") }
                bytes += value
            } while end.map { stream.offset < $0 } ?? true
            guard !bytes.isEmpty else { throw .corrupt(reason: "DICOM frame \(index) is empty") }
            return bytes
        }
    }

    /// The item header at the stream's offset: its value's length, or nil at the sequence's end.
    private static func item(_ stream: ByteStream) throws(ImageDecodingError) -> Int? {
        guard stream.length - stream.offset >= 8 else { return nil }
        let header = stream.readSparse(8)
        guard header.count == 8 else { throw stream.readFailure ?? .truncated(reason: "a DICOM item ends past the end of the file") }
        let tag = UInt32(header[0]) << 16 | UInt32(header[1]) << 24 | UInt32(header[2]) | UInt32(header[3]) << 8
        let length = Int(header[4]) | Int(header[5]) << 8 | Int(header[6]) << 16 | Int(header[7]) << 24
        if tag == DICOMTag.sequenceDelimiter { return nil }
        guard tag == DICOMTag.item else { throw .corrupt(reason: "encapsulated DICOM pixel data holds something other than items") }
        guard length <= stream.length - stream.offset else { throw .truncated(reason: "a DICOM fragment runs past the end of the file") }
        return length
    }

    /// The frames' offsets from the fragments' item headers: one fragment per frame when the
    /// counts agree (the rule for whole-slide images), all of them for a single frame, else the
    /// fragments that start a codestream (JPEG's SOI, JPEG 2000's SOC or signature box).
    /// Made once, under the lock: concurrent first reads wait for one walk rather than each walking.
    private func walkedOffsets(_ stream: ByteStream, first: Int) throws(ImageDecodingError) -> [Int] {
        try walked.withLock { (known: inout [Int]?) throws(ImageDecodingError) -> [Int] in
            if let known { return known }
            let offsets = try walk(stream, first: first)
            known = offsets
            return offsets
        }
    }

    private func walk(_ stream: ByteStream, first: Int) throws(ImageDecodingError) -> [Int] {
        var fragments: [Int] = []
        stream.seek(to: first)
        while true {
            let start = stream.offset
            guard let length = try Self.item(stream) else { break }
            guard fragments.count < 4 * frameCount + 16 else { throw .corrupt(reason: "DICOM pixel data of far more fragments than frames") }
            fragments.append(start - first)
            stream.skip(length)
        }
        var offsets = fragments
        if frameCount == 1 {
            offsets = Array(fragments.prefix(1))
        } else if fragments.count != frameCount {
            offsets = []
            for fragment in fragments {
                stream.seek(to: first + fragment + 8)
                let head = stream.readSparse(4)
                let startsJPEG = head.starts(with: [0xFF, 0xD8]), startsJPEG2000 = head.starts(with: [0xFF, 0x4F]) || head == [0, 0, 0, 0x0C]
                if isJPEG ? startsJPEG : startsJPEG2000 { offsets.append(fragment) }
            }
        }
        guard offsets.count == frameCount else {
            throw .corrupt(reason: "DICOM pixel data of \(fragments.count) fragments that cannot be told into \(frameCount) frames")
        }
        return offsets
    }
}
