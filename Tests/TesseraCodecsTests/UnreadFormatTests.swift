import Foundation
import Testing

@testable import TesseraCodecs

/// Still images in formats Tessera does not decode are reported as such (`unsupported`, exit 67 in
/// the CLI), never as unknown bytes, which hosts then try as video.
@Suite struct UnreadFormatTests {
    static func padded(_ bytes: [UInt8], to count: Int = 64) -> [UInt8] { bytes + [UInt8](repeating: 0, count: max(0, count - bytes.count)) }

    static let samples: [(name: String, bytes: [UInt8])] = [
        ("PCX", padded([0x0A, 5, 1, 8], to: 128)),
        ("Photoshop (PSD)", padded(Array("8BPS".utf8) + [0, 1])),
        ("QOI", padded(Array("qoif".utf8))),
    ]

    /// Formats that were refused here until ffmpeg's image decoders read them: recognised now, so
    /// a broken one is a broken image (never unknown bytes, never unsupported).
    static let read: [(format: ImageFormat, bytes: [UInt8])] = [
        (.bmp, padded(Array("BM".utf8) + [UInt8](repeating: 0, count: 12) + [40, 0, 0, 0])),
        (.ico, padded([0, 0, 1, 0, 1, 0, 16, 16, 0, 0, 1, 0, 32, 0])),
        (.ico, padded([0, 0, 2, 0, 1, 0, 16, 16, 0, 0, 1, 0, 1, 0])),
        (.pnm, Array("P6\n2 2\n255\n".utf8) + [UInt8](repeating: 7, count: 12)),
        (.pnm, Array("P7\nWIDTH 1\nHEIGHT 1\nDEPTH 3\nMAXVAL 255\nENDHDR\n".utf8) + [1, 2, 3]),
        (.tga, padded([0, 0, 2], to: 18 + 12) + [UInt8](repeating: 0, count: 8) + Array("TRUEVISION-XFILE.\0".utf8)),
    ]

    @Test func readsTheFormatsFFmpegDecodes() throws {
        for sample in Self.read {
            do {
                #expect(try ImageDecoder().probe(.data(Data(sample.bytes))).format == sample.format)
            } catch {
                #expect(error.category == .corrupt || error.category == .truncated, "\(sample.format): \(error)")
            }
        }
    }

    @Test func namesEachFormatItDoesNotRead() throws {
        for sample in Self.samples {
            do {
                _ = try ImageDecoder().probe(.data(Data(sample.bytes)))
                Issue.record("\(sample.name) was read")
            } catch {
                guard case .unsupported(let reason) = error else {
                    Issue.record("\(sample.name): \(error)")
                    continue
                }
                #expect(reason == "\(sample.name) images are not read")
                #expect(error.category == .unsupported)
            }
        }
    }

    /// Containers that share a first byte or two with those formats stay unknown (and so go on to
    /// the video probe): an MP4 whose first box is 256 bytes long, MPEG program streams, text.
    @Test func leavesVideoContainersAndTextUnknown() throws {
        let others: [[UInt8]] = [
            Self.padded([0, 0, 1, 0] + Array("ftypisom".utf8)),
            Self.padded([0, 0, 1, 0xBA, 0x44]),
            Self.padded(Array("Plain text, not a picture\n".utf8)),
            Self.padded(Array("RIFF\u{0}\u{0}\u{0}\u{0}AVI LIST".utf8)),
        ]
        for bytes in others {
            #expect(throws: ImageDecodingError.unknownFormat) { try ImageDecoder().probe(.data(Data(bytes))) }
        }
    }
}
