import Foundation
import Testing

/// CTesseraSVG writes librsvg's, cairo's and GLib's prototypes out by hand (it cannot include
/// their headers without linking them). A prototype or struct that drifted from the real one would
/// corrupt memory only at run time, so this compiles Tests/NativeHelpers/svg-declarations.c, which
/// holds the hand-written table against the real headers with static assertions.
@Suite("Hand-written C declarations")
struct SVGDeclarationTests {
    @Test("CTesseraSVG's prototypes and structs match librsvg's, cairo's and GLib's headers")
    func svgDeclarationsMatchTheHeaders() throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let flags = try run("pkg-config", ["--cflags", "librsvg-2.0"])
        #expect(flags.status == 0, "pkg-config knows no librsvg-2.0: \(flags.errors)")
        let compile = try run("clang", ["-fsyntax-only", "-Werror"]
            + flags.output.split(whereSeparator: \.isWhitespace).map(String.init)
            + ["-I", repository.appendingPathComponent("Sources/CTesseraSVG/include").path,
               repository.appendingPathComponent("Tests/NativeHelpers/svg-declarations.c").path])
        #expect(compile.status == 0, "\(compile.errors)")
    }

    /// Runs a tool found on PATH (clang comes with every Swift toolchain).
    private func run(_ tool: String, _ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: outputData, as: UTF8.self), String(decoding: errorData, as: UTF8.self))
    }
}
