import ArgumentParser
import Foundation
import Tessera

@main
struct TesseraCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tessera",
        abstract: "Big images and video, cheap to show.",
        subcommands: [
            InfoCommand.self, ConvertCommand.self, ThumbnailCommand.self, TileCommand.self, LoadCommand.self, RenderCommand.self,
            StripCommand.self, TrimmerCommand.self, TrimCommand.self,
        ]
    )

    /// Runs the command; a usage error (a bad or missing option) is one line on stderr with the
    /// command's name and exit status 64, instead of ArgumentParser's message plus the whole usage.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            guard code == .validationFailure else {
                // Help, version, and the exit statuses commands throw, as ArgumentParser handles them.
                if code == .success || error is ExitCode { exit(withError: error) }
                // A failure no command caught: still one line, with its category's status.
                let failures = FailureLog()
                failures.report("tessera", error)
                do { try failures.exit() } catch { exit(withError: error) }
                exit(withError: ExitCode.failure)
            }
            let message = self.message(for: error).split(separator: "\n").first.map(String.init) ?? "invalid arguments"
            let trimmed = message.hasPrefix("Error: ") ? String(message.dropFirst(7)) : message
            FileHandle.standardError.write(Data("tessera: \(oneLine(trimmed)) (see --help)\n".utf8))
            Foundation.exit(ExitStatus.usage)
        }
    }
}
