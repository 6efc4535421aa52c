import ArgumentParser
import Dispatch
import FoundationEssentials
import Tessera
import TesseraCore
import TesseraServer

@main
struct TesseraCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tessera",
        abstract: "Big images and video, cheap to show.",
        version: tesseraVersion,
        subcommands: [
            InfoCommand.self, ConvertCommand.self, ThumbnailCommand.self, RenditionsCommand.self, TileCommand.self, LoadCommand.self,
            RenderCommand.self, StripCommand.self, TrimmerCommand.self, TrimCommand.self, ServeCommand.self, ManifestCommand.self,
            SignCommand.self, UserCommand.self,
        ]
    )

    /// Runs the command; a usage error (a bad or missing option) is one line on stderr with the
    /// command's name and exit status 64, instead of ArgumentParser's message plus the whole usage.
    ///
    /// A synchronous main that waits for the async commands, rather than an async main: Swift's
    /// async main parks the main thread with `dispatch_main`, which ends it with `pthread_exit`,
    /// and that unwinds the stack through the binary's unwind tables, about 1 MB of resident
    /// memory in every run, measured. Nothing in the CLI runs on the main actor, so blocking the
    /// main thread while the command runs on the cooperative pool cannot deadlock.
    static func main() {
        do {
            var command = try parseAsRoot()
            // Before any other thread exists: glibc's arena limit binds only arenas made after it.
            if command is ServeCommand, !TesseraServer.configureProcess() {
                writeToStandardError(
                    "tessera serve: handlers run on Swift's own thread pool (this runtime's executor hook is not one Tessera knows)\n")
            }
            if let asynchronous = command as? any AsyncParsableCommand {
                try waitFor(asynchronous)
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
            writeToStandardError("tessera: \(oneLine(trimmed)) (see --help)\n")
            Self.exit(withError: ExitCode(ExitStatus.usage))
        }
    }
}

/// Runs an async command to its end while the calling (main) thread waits.
private func waitFor(_ command: sending any AsyncParsableCommand) throws {
    let outcome = Locked<Result<Void, any Error>>(.success(()))
    let finished = DispatchSemaphore(value: 0)
    Task {
        var command = command
        do { try await command.run() } catch { outcome.withLock { $0 = .failure(error) } }
        finished.signal()
    }
    finished.wait()
    try outcome.withLock { $0 }.get()
}
