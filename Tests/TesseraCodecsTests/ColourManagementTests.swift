import Foundation
import TesseraCore
import Testing

@testable import TesseraCodecs

/// Embedded profiles converted to sRGB, checked against LittleCMS's own transform of the same pixels
/// through Pillow's ImageCms (Tests/Fixtures/colour, made by scripts/make-colour-fixtures.py).
@Suite("Colour management")
struct ColourManagementTests {
    struct Entry: Decodable, Sendable, CustomTestStringConvertible {
        let file: String
        let colourSpace: String
        let profileDescription: String?
        let profileBytes: Int?
        let hostile: Bool
        let reference: String?
        let bitsPerSample: Int
        /// What the pixels are taken to be in when no profile is embedded (sRGB, a colour space
        /// stated in numbers, the default CMYK profile, CIELab).
        let assumedProfile: Assumed?
        /// ΔE2000 of known wrong ways to convert (named) against the reference.
        let bugDeltaE: [String: Difference]

        struct Assumed: Decodable, Sendable { let description: String }
        struct Difference: Decodable, Sendable { let mean: Double; let p99: Double }

        var path: String { Self.directory + "/" + file }
        var testDescription: String { file }

        static let directory = Fixtures.path("colour")
    }

    static let entries: [Entry] = {
        let data = try! Data(contentsOf: URL(fileURLWithPath: Entry.directory + "/manifest.json"))
        return try! JSONDecoder().decode([Entry].self, from: data)
    }()

    static let managed = entries.filter { !$0.hostile && $0.reference != nil }

    static func reference(_ entry: Entry) throws -> PixelBuffer {
        try ImageDecoder().decode(.file(Entry.directory + "/" + entry.reference!)).pixels
    }

    /// The ΔE2000 bounds of the issue; a gamma-2.2 gray profile is so near sRGB's curve that
    /// ignoring it would pass those, so gray is held to a tighter mean.
    static func check(_ pixels: PixelBuffer, against entry: Entry, _ comment: String) throws {
        let difference = colourDifference(pixels, try reference(entry))
        let meanBound = entry.colourSpace == "GRAY" ? 0.3 : 1
        #expect(
            difference.mean <= meanBound && difference.p99 <= 3, "\(entry.file) \(comment): ΔE2000 mean \(difference.mean), p99 \(difference.p99)")
    }

    @Test(arguments: managed)
    func decodesMatchLittleCMS(_ entry: Entry) throws {
        let decoded = try ImageDecoder().decode(.file(entry.path))
        // Converted pixels are sRGB and so untagged.
        #expect(decoded.iccProfile == nil)
        try Self.check(decoded.pixels, against: entry, "decoded")
    }

    /// Thumbnails convert after shrinking, so at full size they must equal the decode's colours.
    @Test(arguments: managed)
    func thumbnailsAtFullSizeMatchLittleCMS(_ entry: Entry) throws {
        let thumbnail = try Thumbnailer().thumbnail(.file(entry.path), options: ThumbnailOptions(maxPixelSize: 64))
        #expect(thumbnail.iccProfile == nil)
        try Self.check(thumbnail.pixels, against: entry, "thumbnail")
    }

    /// Rows for pyramids are converted as they stream.
    @Test(arguments: managed)
    func streamedRowsMatchLittleCMS(_ entry: Entry) throws {
        let reader = try ImageRowReader(.file(entry.path))
        var bytes: [UInt8] = []
        try reader.forEachRow { bytes += $0 }
        let size = reader.properties.size
        try Self.check(PixelBuffer(width: size.width, height: size.height, format: reader.format, bytes: bytes), against: entry, "rows")
    }

    @Test(arguments: entries.filter { $0.profileDescription != nil })
    func probesReportTheProfile(_ entry: Entry) throws {
        let properties = try ImageDecoder().probe(.file(entry.path))
        let profile = try #require(properties.iccProfile)
        #expect(profile.description == entry.profileDescription?.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(profile.colorSpace.rawValue == entry.colourSpace)
        #expect(profile.data.count == entry.profileBytes)
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(properties)) as? [String: Any]
        #expect(json?["iccProfile"] as? String == profile.description)
        #expect(json?["colorSpace"] as? String == entry.colourSpace)
        #expect(properties.warnings.isEmpty)
    }

    /// 16-bit samples are converted before they are reduced to 8 bits. Reducing first passes the
    /// bounds above (ΔE mean 0.22, p99 1.65 for ProPhoto), so this holds the result far closer to
    /// the reference than that mistake comes, in every path that makes pixels.
    @Test(arguments: managed.filter { $0.bitsPerSample == 16 })
    func sixteenBitSamplesKeepTheirPrecisionThroughTheTransform(_ entry: Entry) throws {
        let bug = try #require(entry.bugDeltaE["highBytesThen8BitTransform"] ?? entry.bugDeltaE["unpremultipliedAt8Bits"])
        let reference = try Self.reference(entry)
        let reader = try ImageRowReader(.file(entry.path))
        var rows: [UInt8] = []
        try reader.forEachRow { rows += $0 }
        let size = reader.properties.size
        let outputs = [
            ("decoded", try ImageDecoder().decode(.file(entry.path)).pixels),
            ("thumbnail", try Thumbnailer().thumbnail(.file(entry.path), options: ThumbnailOptions(maxPixelSize: 64)).pixels),
            ("rows", PixelBuffer(width: size.width, height: size.height, format: reader.format, bytes: rows)),
        ]
        for (name, pixels) in outputs {
            let difference = colourDifference(pixels, reference)
            #expect(difference.mean <= bug.mean / 4, "\(entry.file) \(name): ΔE2000 mean \(difference.mean), the 8-bit path's \(bug.mean)")
        }
    }

    /// A 16-bit gray PNG with gAMA 2.5 (PngSuite's `g25n0g16.png`: stored = light^(1/2.5), steepest
    /// at black) against a floating-point reference: LittleCMS's optimised 16-bit gray transform
    /// samples the curve at 4,096 points and was 76 levels off in the darkest values; 8-bit files
    /// were exact. Now 16-bit is as exact as 8-bit, in every path that makes pixels.
    @Test func sixteenBitGrayFollowsItsGammaToTheDarkestValue() throws {
        let path = Fixtures.path("corpus/gray16-gamma25.png")
        let stored = (0..<2048).map { $0 < 1024 ? $0 : ($0 - 1024) * 64 + 63 }
        let expected = stored.map { value -> Int in
            let light = pow(Double(value) / 65535, 1 / 2.5)
            let encoded = light <= 0.0031308 ? light * 12.92 : 1.055 * pow(light, 1 / 2.4) - 0.055
            return Int((encoded * 255).rounded())
        }
        let reader = try ImageRowReader(.file(path))
        var rows: [UInt8] = []
        try reader.forEachRow { rows += $0 }
        let decoded = try ImageDecoder().decode(.file(path)).pixels
        #expect(decoded.format == .gray8)
        for (name, bytes) in [("decoded", decoded.bytes), ("rows", rows)] {
            let worst = zip(bytes, expected).map { abs(Int($0) - $1) }.max() ?? .max
            #expect(bytes.count == expected.count && worst <= 1, "\(name): \(worst) levels from the reference")
        }
    }

    /// Colour a file states in numbers rather than with a profile (PNG cICP, gAMA and cHRM, HEIF
    /// nclx) is described by a profile built from them, which `info` names; an sRGB chunk beats
    /// gAMA, and a probe of a file that states sRGB reports no profile.
    @Test(arguments: entries.filter { $0.profileDescription == nil && $0.assumedProfile != nil && !$0.hostile })
    func coloursStatedInNumbersAreDescribed(_ entry: Entry) throws {
        let properties = try ImageDecoder().probe(.file(entry.path))
        #expect(properties.warnings.isEmpty)
        let assumed = try #require(entry.assumedProfile).description
        if assumed.hasPrefix("sRGB") || entry.colourSpace != "RGB" {
            #expect(properties.iccProfile == nil, "\(entry.file)")
        } else {
            let profile = try #require(properties.iccProfile, "\(entry.file)")
            #expect(profile.colorSpace == .rgb)
            #expect(profile.description == assumed, "\(entry.file)")
        }
    }

    @Test func codePointsTheConverterCannotShowAreReported() throws {
        #expect(throws: CodedColorSpace.Unsupported.self) { try CodedColorSpace(primaries: 9, transfer: 16) }  // PQ
        #expect(throws: CodedColorSpace.Unsupported.self) { try CodedColorSpace(primaries: 200, transfer: 13) }
        #expect(try CodedColorSpace(primaries: 2, transfer: 2).isSRGB)
        #expect(try CodedColorSpace(primaries: 1, transfer: 13).profile == nil)
        // PNG writers label sRGB as gAMA 45455 (and sRGB's cHRM, rounded): nothing to convert.
        let srgbValues = [31270, 32900, 64000, 33000, 30000, 60000, 15000, 6000]
        #expect(CodedColorSpace(pngGamma: 45455, chromaticities: srgbValues)?.isSRGB == true)
        #expect(CodedColorSpace(pngGamma: 100_000, chromaticities: nil)?.isSRGB == false)
        // Chromaticities that describe no colour, and a zero gamma, are ignored.
        #expect(CodedColorSpace(pngGamma: nil, chromaticities: [0, 0, 64000, 33000, 30000, 60000, 15000, 6000]) == nil)
        #expect(CodedColorSpace(pngGamma: 0, chromaticities: nil) == nil)
        #expect(CodedColorSpace(pngGamma: nil, chromaticities: nil) == nil)
    }

    /// A fuzzer's AVIF whose nclx box has an unknown transfer (0x696f): libheif refuses the box (and,
    /// in 1.15, still allocates it: freed since, which the fuzz smoke's LeakSanitizer checks with
    /// this file in its corpus); the probe says so and the pixels decode as stored.
    @Test func anUnreadableNclxBoxIsReportedAndTheImageStillDecodes() throws {
        let path = Fixtures.path("fuzz/heif-nclx-unknown-transfer.avif")
        let properties = try ImageDecoder().probe(.file(path))
        #expect(properties.iccProfile == nil)
        #expect(properties.warnings.count == 1)
        #expect(properties.warnings.first?.hasPrefix("ignored the nclx colour box") == true)
        #expect(try ImageDecoder().decode(.file(path)).pixels.size == properties.size)
    }

    /// A fuzzer's AVIF whose clean-aperture box crops the image to nothing: libheif reports a 0×N
    /// image, which used to reach a zero-sized pixel buffer (a trap); now it is corrupt, probed or decoded.
    @Test func anAVIFCroppedToNothingIsCorrupt() {
        let source = ImageSource.file(Fixtures.path("fuzz/avif-clap-crops-to-nothing.avif"))
        for attempt in [{ _ = try ImageDecoder().probe(source) }, { _ = try ImageDecoder().decode(source) }] as [() throws -> Void] {
            #expect { try attempt() } throws: { error in
                guard case ImageDecodingError.corrupt(let reason) = error else { return false }
                return reason.hasPrefix("a HEIF image of ")
            }
        }
    }

    /// A fuzzer's 128-byte PNG whose eXIf chunk claims 688 MB: libpng allocated the claim whole
    /// inside png_read_info before the file's end showed; now libpng skips the chunk unread (the
    /// header reader caps metadata at 1 MB), and the file is the truncated PNG it is. The fuzz
    /// smoke, with its 256 MB allocation limit, runs it from the corpus too.
    @Test func aPNGWhoseEXIFClaimsHundredsOfMegabytesIsJustTruncated() {
        let source = ImageSource.file(Fixtures.path("fuzz/png-exif-claims-688mb.png"))
        #expect { try ImageDecoder().decode(source) } throws: { error in
            guard case ImageDecodingError.truncated = error else { return false }
            return true
        }
        // With truncation allowed, what libpng gets to: the image at its size, or a typed error.
        var options = DecodeOptions()
        options.allowsTruncatedData = true
        // (decode's errors are typed, so only the size needs checking.)
        if let decoded = try? ImageDecoder(options: options).decode(source) {
            #expect(decoded.pixels.size == PixelSize(width: 32, height: 48))
        }
    }

    /// A profile kept rather than applied travels with the untouched pixels, byte for byte.
    /// An 8-bit CIELab TIFF as Pillow writes it (PhotometricInterpretation 8, with a Lab identity
    /// profile) converts to sRGB: its pixels are the RGB colour it was made from, give or take the
    /// rounding of 8-bit Lab.
    @Test func cieLabTIFFsConvertToSRGB() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("lab-\(UUID().uuidString).tif").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let repository = Fixtures.directory.deletingLastPathComponent().deletingLastPathComponent()
        let process = Process()
        process.executableURL = repository.appendingPathComponent(".build/browser-venv/bin/python")
        process.arguments = ["-c", "from PIL import Image; Image.new('RGB', (64, 48), (200, 30, 40)).convert('LAB').save('\(path)')"]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0)
        let decoded = try ImageDecoder().decode(.file(path))
        #expect(decoded.iccProfile == nil && decoded.pixels.format == .rgb8)
        let pixel = Array(decoded.pixels.pixel(x: 10, y: 10))
        #expect(abs(Int(pixel[0]) - 200) <= 4 && abs(Int(pixel[1]) - 30) <= 4 && abs(Int(pixel[2]) - 40) <= 4, "\(pixel)")
        #expect(try ImageEncoder.encode(decoded.pixels, as: .png(), iccProfile: decoded.iccProfile).count > 0)
    }

    /// A grey JPEG carrying an RGB profile (a tool copied the colour original's): the profile is
    /// ignored with a warning, as browsers do, and the image decodes, thumbnails and converts.
    @Test func aProfileForOtherPixelsIsIgnoredWithAWarning() throws {
        let gray = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("jpeg-grayscale.jpg"))))
        let rgbProfile = try #require(try ImageDecoder().probe(.file(Fixtures.path("colour/adobe-rgb.png"))).iccProfile)
        // An APP2 ICC_PROFILE segment (chunk 1 of 1) right after SOI.
        let body = Array("ICC_PROFILE\0".utf8) + [1, 1] + rgbProfile.data
        let segment: [UInt8] = [0xFF, 0xE2, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)] + body
        let tagged = Data(Array(gray[0..<2]) + segment + Array(gray[2...]))
        let properties = try ImageDecoder().probe(.data(tagged))
        #expect(properties.iccProfile == nil)
        #expect(properties.warnings.contains { $0.contains("RGB profile cannot describe gray pixels") }, "\(properties.warnings)")
        let plain = try ImageDecoder().decode(.file(Fixtures.path("jpeg-grayscale.jpg"))).pixels
        #expect(try ImageDecoder().decode(.data(tagged)).pixels == plain)
        let thumbnail = try Thumbnailer().thumbnail(.data(tagged), options: ThumbnailOptions(maxPixelSize: 16))
        #expect(thumbnail.pixels.format == .gray8)
        #expect(try ImageEncoder.encode(plain, as: .png(), iccProfile: properties.iccProfile).count > 0)
    }

    @Test func keptProfilesTravelWithTheSourcePixels() throws {
        let entry = try #require(Self.entries.first { $0.file == "p3.jpg" })
        var options = DecodeOptions()
        options.colorManagement = .keepSourceProfile
        let kept = try ImageDecoder(options: options).decode(.file(entry.path))
        let probed = try ImageDecoder().probe(.file(entry.path))
        #expect(kept.iccProfile == probed.iccProfile)
        #expect(kept.iccProfile?.data.count == entry.profileBytes)
        let converted = try ImageDecoder().decode(.file(entry.path))
        #expect(kept.pixels.bytes != converted.pixels.bytes, "keeping the profile must leave the pixels unconverted")
    }

    /// `--keep-profile`'s outputs carry the source's profile byte for byte, in every format that
    /// can; a gray profile in WebP (always RGB) becomes converted, untagged pixels instead.
    @Test(arguments: [EncodingFormat.jpeg(), .png(), .webp(quality: 90), .webpLossless])
    func keptProfilesAreEmbeddedByteForByte(_ encoding: EncodingFormat) throws {
        for file in ["p3-multichunk.jpg", "adobe-rgb.png", "gray-gamma22.jpg"] {
            let path = Entry.directory + "/" + file
            let kept = try ImageDecoder(options: DecodeOptions(colorManagement: .keepSourceProfile)).decode(.file(path))
            let source = try #require(kept.iccProfile)
            let encoded = try ImageEncoder.encode(kept.pixels, as: encoding, iccProfile: source)
            let written = try ImageDecoder().probe(.data(encoded)).iccProfile
            let isWebP = if case .webp = encoding { true } else if case .webpLossless = encoding { true } else { false }
            if isWebP && source.colorSpace == .gray {
                #expect(written == nil, "\(file) as \(encoding)")
                // What was written instead is the sRGB conversion.
                let reference = try Self.reference(try #require(Self.entries.first { $0.file == file }))
                #expect(colourDifference(try ImageDecoder().decode(.data(encoded)).pixels, reference).mean < 2)
            } else {
                #expect(written?.data == source.data, "\(file) as \(encoding)")
            }
        }
    }

    /// Hostile profiles (empty, a huge tag count, no signature, cut short) are ignored with a
    /// warning; the pixels decode as plain sRGB.
    @Test(arguments: entries.filter(\.hostile))
    func hostileProfilesAreIgnoredWithAWarning(_ entry: Entry) throws {
        let properties = try ImageDecoder().probe(.file(entry.path))
        #expect(properties.iccProfile == nil)
        #expect(properties.warnings.count == 1)
        #expect(properties.warnings.first?.hasPrefix("ignored the embedded ICC profile: ") == true)
        let decoded = try ImageDecoder().decode(.file(entry.path))
        if let reference = entry.reference {
            let plain = try ImageDecoder().decode(.file(Entry.directory + "/" + reference)).pixels
            #expect(colourDifference(decoded.pixels, plain).mean < 0.5)
        }
    }

    @Test func profilesAreValidatedBeforeLittleCMSSeesThem() {
        var header = [UInt8](repeating: 0, count: 132)
        header[0..<4] = [0, 0, 0, 132]
        header[36..<40] = ArraySlice("acsp".utf8)
        header[16..<20] = ArraySlice("RGB ".utf8)
        #expect((try? ICCProfile(validating: header))?.colorSpace == .rgb)
        var lying = header
        lying[3] = 200  // declares more bytes than it has
        #expect(throws: ICCProfileError.self) { try ICCProfile(validating: lying) }
        var tags = header
        tags[131] = 1  // one tag, but no room for its entry
        #expect(throws: ICCProfileError.self) { try ICCProfile(validating: tags) }
        #expect(throws: ICCProfileError.self) { try ICCProfile(validating: []) }
    }
}
