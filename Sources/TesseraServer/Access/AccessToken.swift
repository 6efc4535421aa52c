import FoundationEssentials

/// Who a request is, carried by the request itself: a user, their groups and an expiry, signed
/// with the server's key (``SigningKeys``), so no session is kept and every server with the same
/// keys accepts it. Written `PAYLOAD.KEY.SIGNATURE` (payload and signature URL-safe base64).
///
/// Two kinds, signed apart: the access cookie authorises content (tiles, files, manifests); the
/// probe token the token service hands to a viewer's script authorises probes only, so a script
/// that reads it cannot fetch what the `HttpOnly` cookie protects.
struct AccessToken: Sendable, Equatable {
    enum Kind: String, Sendable { case access, probe }

    var kind: Kind
    var user: String
    var groups: [String]
    /// Seconds since 1970 after which it is refused.
    var expires: Int

    /// The signed text.
    func encoded(keys: SigningKeys) throws -> String {
        let payload = AccessSecrets.base64URL(Array(payloadText.utf8))
        return payload + "." + keys.signingKeyName + "." + (try keys.sign(payload, domain: Self.domain(kind), keyName: keys.signingKeyName))
    }

    /// The token `text` holds if it is of `kind`, signed by one of `keys` and unexpired at `now`.
    init?(_ text: some StringProtocol, kind: Kind, keys: SigningKeys, now: Int) {
        guard text.utf8.count <= 4096 else { return nil }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 3, let payload = parts.first, let signature = parts.last else { return nil }
        let keyName = parts.dropFirst().dropLast().joined(separator: ".")
        guard keys.verify(String(payload), domain: Self.domain(kind), keyName: keyName, signature: signature),
            let bytes = AccessSecrets.bytes(base64URL: payload)
        else { return nil }
        let fields = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        guard fields.count == 4, fields[0] == kind.rawValue, let expires = Int(fields[3]), now < expires else { return nil }
        self.init(kind: kind, user: String(fields[1]), groups: fields[2].split(separator: ",").map(String.init), expires: expires)
    }

    init(kind: Kind, user: String, groups: [String], expires: Int) {
        self.kind = kind
        self.user = user
        self.groups = groups
        self.expires = expires
    }

    private var payloadText: String { [kind.rawValue, user, groups.joined(separator: ","), String(expires)].joined(separator: "\n") }

    private static func domain(_ kind: Kind) -> String { "tessera-token-" + kind.rawValue }
}

/// The characters user, group and key names may have: letters, digits and `. _ @ -`, 1–64 of them
/// (nothing that needs quoting in a cookie, a header or the users file).
enum UserName {
    static func isValid(_ name: some StringProtocol) -> Bool {
        (1...64).contains(name.utf8.count)
            && name.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                    UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "@"), UInt8(ascii: "-"):
                    true
                default: false
                }
            }
    }
}
