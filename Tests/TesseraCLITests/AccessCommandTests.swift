import Foundation
import Testing

@testable import TesseraServer

/// `tessera user` and `tessera sign`, run as a user runs them.
@Suite("tessera user and tessera sign")
struct AccessCommandTests {
    static func directory() throws -> String { try CLI.scratchDirectory("access") }

    /// The password comes from standard input and appears nowhere but as its scrypt hash; the
    /// file is private; the user logs in with it; `remove` takes them out, and removing nobody fails.
    @Test func userAddHashesThePasswordFromStandardInput() throws {
        let folder = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = folder + "/users.txt"
        let added = try CLI.run(["user", "add", file, "alice", "--group", "staff", "--group", "editors"], input: "correct horse battery\n")
        #expect(added.status == 0, "\(added.stderr)")
        #expect(!(added.stdout + added.stderr).contains("correct horse"))
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.hasPrefix("alice:staff,editors:$scrypt$ln=15,r=8,p=1$") && !text.contains("correct horse"))
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        #expect(try CLI.run(["user", "add", file, "bob"], input: "bob's password\n").status == 0)
        let users = try UserFile(contentsOf: file)
        #expect(users.authenticate("alice", password: "correct horse battery")?.groups == ["staff", "editors"])
        #expect(users.authenticate("alice", password: "correct horse") == nil)
        #expect(users.authenticate("bob", password: "bob's password") != nil)

        #expect(try CLI.run(["user", "remove", file, "alice"]).status == 0)
        #expect(try UserFile(contentsOf: file).authenticate("alice", password: "correct horse battery") == nil)
        let missing = try CLI.run(["user", "remove", file, "alice"])
        #expect(missing.status != 0)
        #expect(missing.stderr.split(separator: "\n").count == 1 && missing.stderr.contains("no user named alice"))
        // A short password is refused, and the file is left as it was.
        let before = try String(contentsOfFile: file, encoding: .utf8)
        let short = try CLI.run(["user", "add", file, "carol"], input: "short\n")
        #expect(short.status != 0 && short.stderr.contains("8–1024"))
        #expect(try String(contentsOfFile: file, encoding: .utf8) == before)
    }

    /// A signed URL verifies with the same keys, by the key named (the first by default), expires
    /// when asked, and any change to it is refused.
    @Test func signPrintsAURLTheServerAccepts() throws {
        let folder = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let keyFile = folder + "/signing.keys"
        let keysText = "new \(Data(repeating: 7, count: 32).base64EncodedString())\nold \(Data(repeating: 9, count: 24).base64EncodedString())\n"
        try keysText.write(toFile: keyFile, atomically: true, encoding: .utf8)
        let keys = try SigningKeys(contentsOf: keyFile)
        let url = "http://127.0.0.1:8080/dzi/staff%2Fscan.tif_files/12/3_4.jpeg"
        let signed = try CLI.run(["sign", url, "--key-file", keyFile, "--expires", "15m"])
        #expect(signed.status == 0, "\(signed.stderr)")
        let first = signed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(first.hasPrefix(url + "?expires="))
        let now = Int(Date.now.timeIntervalSince1970)
        let expires = try #require(first.firstMatch(of: /expires=(\d+)/).flatMap { Int($0.1) })
        #expect((now + 890...now + 910).contains(expires))
        let origin = "http://127.0.0.1:8080"
        let path = String(first.dropFirst(origin.count))
        #expect(URLSignature.verify(path, keys: keys, now: now) == .valid)
        #expect(URLSignature.verify(path.replacing("3_4", with: "3_5"), keys: keys, now: now) != .valid)
        #expect(URLSignature.verify(path, keys: keys, now: expires + 1) != .valid)

        #expect(first.contains("key=new&"))
        let other = try CLI.run(["sign", url, "--key-file", keyFile, "--key-name", "old"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(other.contains("key=old&"))
        #expect(URLSignature.verify(String(other.dropFirst(origin.count)), keys: keys, now: now) == .valid)

        let unknown = try CLI.run(["sign", url, "--key-file", keyFile, "--key-name", "nope"])
        #expect(unknown.status != 0 && unknown.stderr.split(separator: "\n").count == 1)
        let noFile = try CLI.run(["sign", url, "--key-file", folder + "/missing.keys"])
        #expect(noFile.status != 0 && noFile.stderr.contains("missing.keys") && noFile.stderr.split(separator: "\n").count == 1)
    }
}
