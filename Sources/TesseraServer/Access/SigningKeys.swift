/// The keys signed URLs and access tokens are signed with: a file of `NAME SECRET` lines (the
/// secret base64, at least 16 bytes; `#` comments), the first key signing and every key verifying,
/// so a key is rotated by adding the new one first and removing the old one once what it signed
/// has expired. Several servers given the same file accept each other's tokens and URLs: nothing
/// is kept per session.
public struct SigningKeys: Sendable {
    /// A key's name (what a signature says it was made with) and its secret.
    struct Key: Sendable {
        var name: String
        var secret: [UInt8]
    }

    let keys: [Key]
    /// Whether the keys are a random one made for this process (no keys file): nothing signed
    /// outlives the process, and URLs cannot be signed for it.
    public let isEphemeral: Bool

    /// The keys in the file at `path`.
    ///
    /// - Parameter path: the keys file.
    /// - Throws: ``AccessPolicyError`` for an unreadable file, a malformed line, a short secret or
    ///   a repeated name; the message gives the line number, never a secret.
    public init(contentsOf path: String) throws {
        try self.init(text: String(decoding: try AccessSecrets.readFile(path, what: "the signing keys"), as: UTF8.self))
    }

    /// The keys in `text`, as a keys file holds them.
    ///
    /// - Parameter text: `NAME SECRET` lines.
    /// - Throws: ``AccessPolicyError`` as ``init(contentsOf:)``.
    public init(text: String) throws {
        var keys: [Key] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            if fields.isEmpty || fields[0].hasPrefix("#") { continue }
            guard fields.count == 2, let secret = AccessSecrets.bytes(base64URL: fields[1]) ?? Self.standardBase64(fields[1]) else {
                throw AccessPolicyError("signing keys, line \(number + 1): expected NAME SECRET, the secret in base64")
            }
            let name = String(fields[0])
            guard UserName.isValid(name) else { throw AccessPolicyError("signing keys, line \(number + 1): a name of A–Z a–z 0–9 . _ @ -") }
            guard secret.count >= 16 else { throw AccessPolicyError("signing keys, line \(number + 1): a secret of at least 16 bytes") }
            guard !keys.contains(where: { $0.name == name }) else { throw AccessPolicyError("signing keys, line \(number + 1): \(name) again") }
            keys.append(Key(name: name, secret: secret))
        }
        guard !keys.isEmpty else { throw AccessPolicyError("signing keys: no key") }
        self.keys = keys
        isEphemeral = false
    }

    /// One random key, for this process only.
    static func ephemeral() throws -> SigningKeys {
        try SigningKeys(keys: [Key(name: "process", secret: AccessSecrets.randomBytes(32))], isEphemeral: true)
    }

    private init(keys: [Key], isEphemeral: Bool) {
        self.keys = keys
        self.isEphemeral = isEphemeral
    }

    /// The name of the key that signs: the first.
    public var signingKeyName: String { keys[0].name }

    /// The signature of `message` in `domain` (which keeps a token's signature from serving as a
    /// URL's) with the key named `name` (the first when nil), URL-safe base64.
    ///
    /// - Throws: ``AccessPolicyError`` for an unknown key name or when libcrypto fails.
    func sign(_ message: String, domain: String, keyName name: String? = nil) throws -> String {
        guard let key = name.map({ name in keys.first { $0.name == name } }) ?? keys.first else {
            throw AccessPolicyError("no signing key named \(name ?? "")")
        }
        return AccessSecrets.base64URL(try AccessSecrets.hmac(key: key.secret, domain + "\n" + message))
    }

    /// Whether `signature` is `message`'s in `domain` under the key named `name` (compared in
    /// constant time); false for a key not in the file (one rotated out).
    func verify(_ message: String, domain: String, keyName name: some StringProtocol, signature: some StringProtocol) -> Bool {
        // Only the canonical spelling: base64's unused low bits would otherwise give one signature many.
        guard let key = keys.first(where: { $0.name == name }), let given = AccessSecrets.bytes(base64URL: signature),
            AccessSecrets.base64URL(given) == signature,
            let expected = try? AccessSecrets.hmac(key: key.secret, domain + "\n" + message)
        else { return false }
        return AccessSecrets.equal(given, expected)
    }

    private static func standardBase64(_ text: Substring) -> [UInt8]? {
        AccessSecrets.bytes(base64URL: text.replacing("+", with: "-").replacing("/", with: "_"))
    }
}
