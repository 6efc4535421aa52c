import CTesseraLCMS
import Foundation
import TesseraCore
import Testing

@testable import TesseraCodecs

/// The tables that stand in for LittleCMS on matrix/TRC and gray profiles, checked against
/// LittleCMS itself on the same pixels, for every RGB and gray profile Debian's colord-data and
/// libgs-common install here (wide gamuts whose out-of-gamut colours go far below 0 and above 1
/// of sRGB's light among them) and the Display P3 profile of the colour fixtures.
@Suite("Colour tables")
struct SeparableColorTableTests {
    static let profiles: [String] = {
        let directories = ["/usr/share/color/icc/colord", "/usr/share/color/icc/ghostscript"]
        let installed = directories.flatMap { directory in
            ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
                .filter { $0.hasSuffix(".icc") }.map { directory + "/" + $0 }
        }
        return installed.filter { path in
            guard let profile = try? profile(at: path) else { return false }
            return profile.colorSpace == .rgb || profile.colorSpace == .gray
        }.sorted() + [Fixtures.path("colour/p3.jpg")]
    }()

    static func profile(at path: String) throws -> ICCProfile {
        if !path.hasSuffix(".icc") {
            return try #require(try ImageDecoder().probe(.file(path)).iccProfile)
        }
        return try ICCProfile(validating: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
    }

    @Test func theProfilesAreInstalled() {
        // colord-data and libgs-common (bootstrap) ship 27 RGB and gray profiles between them.
        #expect(Self.profiles.count >= 20, "\(Self.profiles)")
    }

    /// A profile that is a lookup table (the fixture's A2B0 turns hues with lightness) is no sum
    /// of per-channel curves: the check made with the tables must refuse them. The fixture's ΔE
    /// tests (ColourManagementTests) then hold LittleCMS's conversion of it to Pillow's.
    @Test func aLookupTableProfileIsLeftToLittleCMS() throws {
        let profile = try Self.profile(at: Fixtures.path("colour/lut-rgb.png"))
        for format in [PixelFormat.rgb8, .rgba8] {
            guard let transform = ColorTransform(profile: profile, format: format) else {
                Issue.record("no transform for the LUT profile (\(format))")
                continue
            }
            #expect(transform.table == nil, "\(format)")
        }
    }

    @Test(arguments: profiles)
    func tablesMatchLittleCMS(_ path: String) throws {
        let profile = try Self.profile(at: path)
        let gray = profile.colorSpace == .gray
        for format in gray ? [PixelFormat.gray8, .grayAlpha8] : [.rgb8, .rgba8] {
            // Not #require: describing a transform for its message would walk LittleCMS's handle.
            guard let tabled = ColorTransform(profile: profile, format: format),
                let plain = ColorTransform(profile: profile, format: format, tables: false)
            else { Issue.record("\(path) \(format): no transform"); continue }
            #expect(tabled.table != nil, "\(path) \(format): matrix/TRC and gray profiles have tables")
            #expect(plain.table == nil)

            // Random colours (not the grid the tables were checked on when made), alpha included.
            var random = SplitMix64(seed: 0x5EED_C010)
            let count = 1 << 16, stride = format.bytesPerPixel
            let source = (0..<(count * stride)).map { _ in UInt8.random(in: 0...255, using: &random) }
            var ours = source, lcms8 = source
            ours.withUnsafeMutableBytes { tabled.apply($0.baseAddress!, pixelCount: count) }
            lcms8.withUnsafeMutableBytes { plain.apply($0.baseAddress!, pixelCount: count) }
            if format.hasAlpha {
                #expect((0..<count).allSatisfy { ours[$0 * stride + stride - 1] == source[$0 * stride + stride - 1] })
            }
            if gray {
                // Gray tables are LittleCMS's own answers.
                #expect(ours == lcms8, "\(path) \(format)")
                continue
            }
            // RGB: against LittleCMS's float pipeline, rounded; its 8-bit path no nearer to that than the tables.
            let exact = try Self.floatReference(
                profile, (0..<count).map { SIMD3(source[$0 * stride], source[$0 * stride + 1], source[$0 * stride + 2]) })
            var largest = 0, equal = 0, ourError = 0, theirError = 0
            for pixel in 0..<count {
                for channel in 0..<3 {
                    let difference = abs(Int(ours[pixel * stride + channel]) - exact[pixel * 3 + channel])
                    largest = max(largest, difference)
                    equal += difference == 0 ? 1 : 0
                    ourError += difference
                    theirError += abs(Int(lcms8[pixel * stride + channel]) - exact[pixel * 3 + channel])
                }
            }
            #expect(largest <= 1, "\(path) \(format): a sample \(largest) levels from LittleCMS's float pipeline")
            #expect(Double(equal) / Double(count * 3) >= 0.95, "\(path) \(format): \(equal) of \(count * 3) samples equal")
            #expect(ourError <= theirError, "\(path) \(format): tables \(ourError) levels off in all, LittleCMS's 8-bit path \(theirError)")
        }
    }

    /// sRGB's 8-bit values (rounded, clamped) of `colours` in `profile`, through LittleCMS in float
    /// (perceptual, black-point compensation, as the converter).
    static func floatReference(_ profile: ICCProfile, _ colours: [SIMD3<UInt8>]) throws -> [Int] {
        let library = try #require(tessera_lcms_load(nil, 0)?.pointee)
        let source = try #require(profile.data.withUnsafeBytes { library.cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count)) })
        defer { _ = library.cmsCloseProfile(source) }
        let sRGB = try #require(library.cmsCreate_sRGBProfile())
        defer { _ = library.cmsCloseProfile(sRGB) }
        let transform = try #require(
            library.cmsCreateTransform(
                source, tessera_lcms_type_rgb_8, sRGB, tessera_lcms_type_rgb_flt, cmsUInt32Number(INTENT_PERCEPTUAL),
                cmsUInt32Number(cmsFLAGS_BLACKPOINTCOMPENSATION | cmsFLAGS_NOCACHE)))
        defer { library.cmsDeleteTransform(transform) }
        let input = colours.flatMap { [$0.x, $0.y, $0.z] }
        var output = [Float](repeating: 0, count: input.count)
        library.cmsDoTransform(transform, input, &output, cmsUInt32Number(colours.count))
        return output.map { Int((min(max($0, 0), 1) * 255).rounded()) }
    }
}
