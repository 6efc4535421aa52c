import ArgumentParser
import FoundationEssentials
import TesseraCore
import TesseraServer

#if canImport(Glibc)
    import Glibc
#endif

/// `tessera sign URL --key-file FILE`: the URL signed for `tessera serve --access`.
struct SignCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign",
        abstract: "Print URL signed with a key of a signing keys file: it grants exactly that request until it expires.",
        discussion: """
            Adds expires, key and signature (HMAC-SHA256 over the path and every parameter) to the query. The server \
            checks it against the same keys file (the policy's signingKeys); several keys may be active at once.
            """)

    @Argument(help: "The URL (http://host/iiif/3/…) or its path and query.")
    var url: String

    @Option(help: "The signing keys file: NAME SECRET lines, the secret base64.")
    var keyFile: String

    @Option(help: "The key to sign with (default: the file's first).")
    var keyName: String?

    @Option(help: "How long the URL works: seconds, or a number with s, m, h or d (default 1h).", transform: Parse.duration)
    var expires = 3600

    func run() throws {
        let failures = FailureLog()
        do {
            let keys = try SigningKeys(contentsOf: keyFile)
            let now = Int(Date.now.timeIntervalSince1970)
            print(try URLSignature.sign(url, keys: keys, keyName: keyName, expires: now + expires))
        } catch let error as AccessPolicyError where error.description.hasPrefix("cannot read") || error.description.hasPrefix("signing keys") {
            failures.report(keyFile, error)
        } catch {
            failures.report(url, error)
        }
        try failures.exit()
    }
}

/// `tessera user add FILE NAME`: a user of the users file `tessera serve --access` logs people in with.
struct UserCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user", abstract: "Manage the users file of an access policy.", subcommands: [Add.self, Remove.self])

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a user (or set their password and groups); the password is read from standard input, one line.",
            discussion: "The password is hashed with scrypt (N=2^15, r=8, p=1) and a random salt; the file is written with mode 600.")

        @Argument(help: "The users file (made when missing).")
        var file: String

        @Argument(help: "The user's name: letters, digits and . _ @ -.")
        var name: String

        @Option(name: .customLong("group"), help: "A group the user is in (repeatable).")
        var groups: [String] = []

        func run() throws {
            let password = UserCommand.readPassword()
            try UserCommand.edit(file) { try $0.set(name, password: password, groups: groups) }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a user.")

        @Argument(help: "The users file.")
        var file: String

        @Argument(help: "The user's name.")
        var name: String

        func run() throws {
            try UserCommand.edit(file) { users in
                guard users.remove(name) else { throw AccessPolicyError("no user named \(name)") }
            }
        }
    }

    /// One line of standard input; on a terminal, asked for on standard error and not echoed.
    static func readPassword() -> String {
        var saved = termios()
        guard isatty(STDIN_FILENO) == 1, tcgetattr(STDIN_FILENO, &saved) == 0 else { return readLine(strippingNewline: true) ?? "" }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        _ = Glibc.write(STDERR_FILENO, "Password: ", 10)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet)
        defer {
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
            _ = Glibc.write(STDERR_FILENO, "\n", 1)
        }
        return readLine(strippingNewline: true) ?? ""
    }

    /// Reads the users file (none yet: no users), changes it, and writes it back whole: a new file
    /// of mode 600 renamed over the old, so a reader never sees half of it.
    static func edit(_ path: String, _ change: (inout UserFile) throws -> Void) throws {
        let failures = FailureLog()
        do {
            var users = access(path, F_OK) == 0 ? try UserFile(contentsOf: path) : UserFile()
            try change(&users)
            try write(users.text, to: path)
        } catch {
            failures.report(path, error)
        }
        try failures.exit()
    }

    private static func write(_ text: String, to path: String) throws {
        let temporary = path + ".tmp-\(getpid())"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw AccessPolicyError("cannot write the users file: \(String(cString: strerror(errno)))") }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        let closed = close(descriptor)
        guard written == bytes.count, closed == 0, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw AccessPolicyError("cannot write the users file")
        }
    }
}
