import Foundation
import Testing

@testable import TesseraCodecs

/// libtiff's messages start with the file's name, which libtiff truncates in some of them, so
/// cutting the path out afterwards missed it (Pillow's oom-225817ca….tif named its directory in a
/// server's 500 body): libtiff is never told the path.
@Suite struct TIFFMessageTests {
    @Test func noErrorOfABrokenTIFFNamesItsDirectory() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("tessera-a-directory-whose-name-libtiff-would-cut-short-\(UUID())/second-level-of-it").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: (directory as NSString).deletingLastPathComponent) }
        let path = directory + "/a-file-name-long-enough-to-be-cut-0123456789abcdef0123456789abcdef.tif"
        // A little-endian TIFF whose first directory claims 11 entries and holds 2: libtiff's
        // "%.100s: Can not read TIFF directory" cuts a path this long to its first 100 characters.
        #expect(path.count > 100)
        try Data([0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00, 0x0B, 0x00] + [UInt8](repeating: 0, count: 24)).write(
            to: URL(fileURLWithPath: path))
        for attempt in [{ _ = try ImageDecoder().probe(.file(path)) }, { _ = try ImageDecoder().decode(.file(path)) }] {
            do {
                try attempt()
                Issue.record("a broken TIFF was read")
            } catch {
                let text = String(describing: error)
                #expect(!text.contains("tessera-a-directory") && !text.contains("second-level") && !text.contains("/"), "\(text)")
                #expect(!text.hasPrefix("tiff:") && !text.contains(": tiff:"), "\(text)")
            }
        }
    }
}
