import FoundationEssentials

/// The users who may log in at Tessera: a file of `NAME:GROUPS:HASH` lines (`tessera user add`
/// writes it), groups comma-separated, the password hashed with scrypt and its parameters kept in
/// the hash (`$scrypt$ln=15,r=8,p=1$SALT$KEY`, the form passlib writes), so they can be raised
/// later without breaking the hashes already made.
public struct UserFile: Sendable {
    /// One user.
    public struct User: Sendable, Equatable {
        /// The name they log in with.
        public var name: String
        /// Their groups, which rules can name.
        public var groups: [String]
        /// Their password's hash.
        var hash: String
    }

    /// The users, in file order.
    public private(set) var users: [User]

    /// scrypt's cost: N = 2^15, r = 8 (32 MiB and about 0.1 s a hash), p = 1: OWASP's minimum
    /// for scrypt is N = 2^17 with r = 8 at p = 1; 2^15 keeps a login under a second on a busy
    /// two-core server, and failed logins are rate-limited on top.
    static let cost = (logN: 15, r: 8, p: 1)

    /// An empty file's users.
    public init() { users = [] }

    /// The users in the file at `path`.
    ///
    /// - Parameter path: the users file.
    /// - Throws: ``AccessPolicyError`` for an unreadable file or a malformed line (named by number).
    public init(contentsOf path: String) throws {
        try self.init(text: String(decoding: try AccessSecrets.readFile(path, what: "the users file"), as: UTF8.self))
    }

    /// The users in `text`, as a users file holds them.
    ///
    /// - Parameter text: `NAME:GROUPS:HASH` lines.
    /// - Throws: ``AccessPolicyError`` as ``init(contentsOf:)``.
    public init(text: String) throws {
        users = []
        for (number, line) in text.split(separator: "\n").enumerated() where !line.hasPrefix("#") && !line.allSatisfy(\.isWhitespace) {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            let groups = fields.count == 3 ? fields[1].split(separator: ",").map(String.init) : []
            guard fields.count == 3, UserName.isValid(fields[0]), groups.allSatisfy(UserName.isValid),
                Self.parameters(of: String(fields[2])) != nil
            else { throw AccessPolicyError("users file, line \(number + 1): expected NAME:GROUPS:$scrypt$… (tessera user add writes it)") }
            users.removeAll { $0.name == fields[0] }
            users.append(User(name: String(fields[0]), groups: groups, hash: String(fields[2])))
        }
    }

    /// The file's text.
    public var text: String { users.map { "\($0.name):\($0.groups.joined(separator: ",")):\($0.hash)\n" }.joined() }

    /// Adds `name` (or replaces them) with `password`, hashed with a fresh salt.
    ///
    /// - Parameters:
    ///   - name: letters, digits and `. _ @ -`.
    ///   - password: at least 8 characters.
    ///   - groups: the groups they are in.
    /// - Throws: ``AccessPolicyError`` for a bad name, group or password, or when libcrypto is missing.
    public mutating func set(_ name: String, password: String, groups: [String]) throws {
        guard UserName.isValid(name) else { throw AccessPolicyError("a user name is 1–64 of A–Z a–z 0–9 . _ @ -") }
        guard groups.allSatisfy(UserName.isValid) else { throw AccessPolicyError("a group name is 1–64 of A–Z a–z 0–9 . _ @ -") }
        guard password.count >= 8, password.utf8.count <= 1024 else { throw AccessPolicyError("a password has 8–1024 characters") }
        let salt = try AccessSecrets.randomBytes(16)
        let (logN, r, p) = Self.cost
        let key = try AccessSecrets.scrypt(password, salt: salt, logN: logN, r: r, p: p)
        let hash = "$scrypt$ln=\(logN),r=\(r),p=\(p)$" + Self.base64(salt) + "$" + Self.base64(key)
        let user = User(name: name, groups: groups, hash: hash)
        if let index = users.firstIndex(where: { $0.name == name }) { users[index] = user } else { users.append(user) }
    }

    /// Removes the user `name`; whether there was one.
    ///
    /// - Parameter name: the user's name.
    public mutating func remove(_ name: String) -> Bool {
        let count = users.count
        users.removeAll { $0.name == name }
        return users.count < count
    }

    /// The user named `name` when `password` is theirs. Someone unknown costs a hash too, so the
    /// time taken does not tell who has an account.
    func authenticate(_ name: String, password: String) -> User? {
        let user = users.first { $0.name == name }
        let hash = user?.hash ?? Self.decoy
        guard let (logN, r, p, salt, key) = Self.parameters(of: hash), password.utf8.count <= 1024,
            let computed = try? AccessSecrets.scrypt(password, salt: salt, logN: logN, r: r, p: p)
        else { return nil }
        return AccessSecrets.equal(computed, key) && user != nil ? user : nil
    }

    /// A hash no password matches, of the same cost, for unknown names.
    private static let decoy = "$scrypt$ln=\(cost.logN),r=\(cost.r),p=\(cost.p)$AAAAAAAAAAAAAAAAAAAAAA$" + String(repeating: "A", count: 43)

    /// A hash's parameters, salt and key; nil for another form or parameters beyond scrypt's bounds here.
    private static func parameters(of hash: String) -> (logN: Int, r: Int, p: Int, salt: [UInt8], key: [UInt8])? {
        let parts = hash.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].isEmpty, parts[1] == "scrypt" else { return nil }
        var values: [Substring: Int] = [:]
        for item in parts[2].split(separator: ",") {
            let pair = item.split(separator: "=")
            guard pair.count == 2, let value = Int(pair[1]) else { return nil }
            values[pair[0]] = value
        }
        guard let logN = values["ln"], let r = values["r"], let p = values["p"], (1...20).contains(logN), (1...32).contains(r),
            (1...16).contains(p), let salt = AccessSecrets.bytes(base64URL: standard(parts[3])),
            let key = AccessSecrets.bytes(base64URL: standard(parts[4])), key.count == 32
        else { return nil }
        return (logN, r, p, salt, key)
    }

    /// Standard base64 without padding, as passlib writes it (`+` and `/`).
    private static func base64(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString().replacing("=", with: "") }

    private static func standard(_ text: Substring) -> String { String(text).replacing("+", with: "-").replacing("/", with: "_") }
}
