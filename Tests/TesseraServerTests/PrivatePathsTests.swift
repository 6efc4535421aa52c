import Foundation
import Testing

@testable import TesseraServer

/// What a C library writes into a message never reaches a client with the server's directories in it.
@Suite struct PrivatePathsTests {
    @Test func theServersDirectoriesAreTakenOutOfErrorTexts() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-private-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: base) }
        try FileManager.default.createDirectory(atPath: base + "/real/root/cache", withIntermediateDirectories: true)
        // The root as configured is a link: libraries see (and name) the real path.
        try FileManager.default.createSymbolicLink(atPath: base + "/link", withDestinationPath: base + "/real/root")
        var configuration = ServerConfiguration(root: base + "/link/", cacheDirectory: base + "/real/root/cache")
        configuration.pagesDirectory = "/"
        let paths = PrivatePaths(configuration)
        #expect(paths.scrub("truncated: \(base)/real/root/sub/scan.tif: Seek error") == "truncated: sub/scan.tif: Seek error")
        #expect(paths.scrub("corrupt: \(base)/link/a.tif: bad") == "corrupt: a.tif: bad")
        #expect(paths.scrub("failed: \(base)/real/root/cache/.jobs/x.mp4 cannot be written") == "failed: .jobs/x.mp4 cannot be written")
        #expect(paths.scrub("scaled 1/8, region 0,0,10,10") == "scaled 1/8, region 0,0,10,10")
        // "/" as a directory would take every slash out: it is not one.
        #expect(!paths.directories.contains("/"))
    }
}
