import Foundation
import Testing

/// CTesseraCairo, CTesseraSVG and CTesseraPDF write cairo's, GLib's, librsvg's and poppler-glib's
/// prototypes out by hand (they cannot include those headers without linking the libraries). A
/// prototype or struct that drifted from the real one would corrupt memory only at run time, so
/// this compiles Tests/NativeHelpers/vector-declarations.c, which holds the hand-written tables
/// against the real headers with static assertions.
@Suite("Hand-written C declarations")
struct VectorDeclarationTests {
    @Test("CTesseraCairo's, CTesseraSVG's and CTesseraPDF's prototypes and structs match the libraries' headers")
    func vectorDeclarationsMatchTheHeaders() throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let flags = try run("pkg-config", ["--cflags", "librsvg-2.0", "poppler-glib"])
        #expect(flags.status == 0, "pkg-config knows no librsvg-2.0 or poppler-glib: \(flags.errors)")
        let includes = ["CTesseraCairo", "CTesseraSVG", "CTesseraPDF", "CTesseraLoader"].flatMap {
            ["-I", repository.appendingPathComponent("Sources/\($0)/include").path]
        }
        let compile = try run(
            "clang",
            ["-fsyntax-only", "-Werror"]
                + flags.output.split(whereSeparator: \.isWhitespace).map(String.init) + includes
                + [repository.appendingPathComponent("Tests/NativeHelpers/vector-declarations.c").path])
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
