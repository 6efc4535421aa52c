import Foundation
import TesseraCodecs
import TesseraCore
import Testing

@testable import TesseraServer

/// The pieces access control is made of, alone: the policy file, globs, signing keys, signed
/// URLs, tokens and the users file.
@Suite("Access control: policy, keys, signatures, tokens, users")
struct AccessPolicyTests {
    static let keysText =
        "# rotation: new first\nnew \(Data(repeating: 7, count: 32).base64EncodedString())\nold \(Data(repeating: 9, count: 24).base64EncodedString())\n"

    static func policy(_ json: String) throws -> AccessPolicy {
        try AccessPolicy(json: Array(json.utf8), folder: "/etc/tessera")
    }

    @Test func globsMatchWithinAndAcrossSegments() throws {
        let cases: [(String, String, Bool)] = [
            ("staff/**", "staff/a.jpg", true), ("staff/**", "staff/x/y/z.tif", true), ("staff/**", "staffroom/a.jpg", false),
            ("staff/**", "public/staff/a.jpg", false), ("*.tif", "a.tif", true), ("*.tif", "x/a.tif", false), ("**/*.tif", "x/y/a.tif", true),
            ("**/*.tif", "a.tif", true), ("a/**/b.jpg", "a/b.jpg", true), ("a/**/b.jpg", "a/x/y/b.jpg", true), ("a/?.jpg", "a/1.jpg", true),
            ("a/?.jpg", "a/12.jpg", false), ("a/?.jpg", "a//.jpg", false), ("**", "anything/at/all", true),
            ("exact.jpg", "exact.jpg", true), ("exact.jpg", "exact.jpgx", false),
            // Unicode names are matched byte for byte.
            ("fotos/*", "fotos/Zürich.jpg", true),
        ]
        for (pattern, identifier, expected) in cases {
            #expect(try #require(IdentifierGlob(pattern)).matches(identifier) == expected, "\(pattern) ~ \(identifier)")
        }
        #expect(IdentifierGlob("") == nil)
        // Many stars against a long name that nearly matches: linear, not exponential.
        let stars = try #require(IdentifierGlob(String(repeating: "*a", count: 40) + "b"))
        #expect(!stars.matches(String(repeating: "a", count: 4000)))
    }

    @Test func theFirstMatchingRuleDecidesElseTheDefault() throws {
        let policy = try Self.policy(
            """
            {"default": "restricted", "users": "users.txt", "signingKeys": "/abs/signing.keys",
             "rules": [{"match": "staff/public/**", "access": "public"},
                       {"match": "staff/**", "access": "restricted", "groups": ["staff"], "maxSize": 200},
                       {"match": "previews/**", "access": "degraded"}]}
            """)
        #expect(policy.rule(for: "staff/public/a.jpg").tier == .public)
        #expect(policy.rule(for: "staff/a.jpg").tier == .restricted)
        #expect(policy.rule(for: "staff/a.jpg").groups == ["staff"])
        #expect(policy.rule(for: "staff/a.jpg").substitute?.maxSize == 200)
        #expect(policy.rule(for: "previews/a.jpg").substitute?.maxSize == 400)
        #expect(policy.rule(for: "elsewhere.jpg").tier == .restricted)
        #expect(policy.rule(for: "elsewhere.jpg").substitute == nil)
        #expect(policy.usersFile == "/etc/tessera/users.txt")
        #expect(policy.signingKeysFile == "/abs/signing.keys")
        #expect(policy.restrictsAnything)
        #expect(try !Self.policy(#"{"rules": [{"match": "**", "access": "public"}]}"#).restrictsAnything)
    }

    @Test func aBadPolicySaysWhereAndNeverWhatFile() throws {
        for (json, expected) in [
            ("[]", "not a JSON object"), ("{", "not JSON"), (#"{"default": "secret"}"#, "default"),
            (#"{"rules": [{"match": "", "access": "public"}]}"#, "rule 1: match"),
            (#"{"rules": [{"match": "a", "access": "public", "maxSize": 10}]}"#, "rule 1: a public rule"),
            (#"{"rules": [{"match": "a", "access": "degraded", "maxSize": 0}]}"#, "maxSize"),
            (#"{"rules": [{"match": "a", "access": "restricted", "groups": ["st aff"]}]}"#, "group"),
            (#"{"sameSite": "None"}"#, "secureCookie"), (#"{"authorize": "ftp://x"}"#, "authorize"),
            (#"{"tokenSeconds": 5}"#, "tokenSeconds"), (#"{"authorizeSeconds": 0}"#, "authorizeSeconds"),
        ] {
            do {
                _ = try Self.policy(json)
                Issue.record("accepted \(json)")
            } catch {
                #expect(String(describing: error).contains(expected), "\(json): \(error)")
            }
        }
        do {
            _ = try AccessPolicy(contentsOf: "/nonexistent/dir/policy.json")
            Issue.record("an unreadable policy was accepted")
        } catch {
            #expect(!String(describing: error).contains("/nonexistent"))
        }
    }

    @Test func keysRotateTheFirstSignsAndEveryKeyVerifies() throws {
        let keys = try SigningKeys(text: Self.keysText)
        #expect(keys.signingKeyName == "new")
        let signature = try keys.sign("message", domain: "d")
        #expect(keys.verify("message", domain: "d", keyName: "new", signature: signature))
        #expect(!keys.verify("message", domain: "other", keyName: "new", signature: signature))
        #expect(!keys.verify("message", domain: "d", keyName: "old", signature: signature))
        let old = try keys.sign("message", domain: "d", keyName: "old")
        #expect(keys.verify("message", domain: "d", keyName: "old", signature: old))
        // The old key removed: what it signed is refused.
        let rotated = try SigningKeys(text: "new \(Data(repeating: 7, count: 32).base64EncodedString())\n")
        #expect(!rotated.verify("message", domain: "d", keyName: "old", signature: old))
        #expect(rotated.verify("message", domain: "d", keyName: "new", signature: signature))
        for bad in ["", "name", "name not-base64!", "name \(Data(count: 8).base64EncodedString())", "a b c"] {
            #expect(throws: AccessPolicyError.self, "\(bad)") { try SigningKeys(text: bad) }
        }
        #expect(throws: AccessPolicyError.self) {
            try SigningKeys(text: "same \(Data(count: 16).base64EncodedString())\nsame \(Data(count: 16).base64EncodedString())")
        }
    }

    @Test func aSignedURLGrantsExactlyItsRequestUntilItExpires() throws {
        let keys = try SigningKeys(text: Self.keysText)
        let now = 1_800_000_000
        let signed = try URLSignature.sign("http://host/iiif/3/a%2Fb.jpg/full/max/0/default.jpg", keys: keys, expires: now + 60)
        #expect(signed.hasPrefix("http://host/iiif/3/a%2Fb.jpg/full/max/0/default.jpg?expires=\(now + 60)&key=new&signature="))
        let target = String(signed.dropFirst("http://host".count))
        #expect(URLSignature.verify(target, keys: keys, now: now) == .valid)
        #expect(URLSignature.verify(target, keys: keys, now: now + 60) == .invalid("the URL has expired"))
        // Tampered path, parameter, signature; a parameter added after the signature; unknown key.
        for tampered in [
            target.replacing("max", with: "512,"), target.replacing("expires=\(now + 60)", with: "expires=\(now + 6000)"),
            target.replacing("key=new", with: "key=old"), String(target.dropLast()) + (target.last == "A" ? "B" : "A"),
            target + "&x=1", target.replacing("key=new", with: "key=gone"),
        ] {
            guard case .invalid = URLSignature.verify(tampered, keys: keys, now: now) else {
                Issue.record("accepted \(tampered)")
                continue
            }
        }
        #expect(URLSignature.verify("/iiif/3/a.jpg/info.json", keys: keys, now: now) == .unsigned)
        #expect(URLSignature.verify("/iiif/3/a.jpg/info.json?x=1", keys: keys, now: now) == .unsigned)
        // A query already there is signed too.
        let withQuery = try URLSignature.sign("/video/a.mp4/sprite.jpg?frames=10", keys: keys, expires: now + 60)
        #expect(URLSignature.verify(withQuery, keys: keys, now: now) == .valid)
        #expect(URLSignature.verify(withQuery.replacing("frames=10", with: "frames=99"), keys: keys, now: now) != .valid)
        // Signed with the old key (rotation): valid while the old key is held.
        let old = try URLSignature.sign("/a.jpg", keys: keys, keyName: "old", expires: now + 60)
        #expect(URLSignature.verify(old, keys: keys, now: now) == .valid)
        #expect(throws: AccessPolicyError.self) { try URLSignature.sign(signed, keys: keys, expires: now) }
        // A path whose parameter holds a URL is a path (FuzzAccess found this).
        let redirect = try URLSignature.sign("/a.jpg?next=http://x/y", keys: keys, expires: now + 60)
        #expect(redirect.hasPrefix("/a.jpg?next=http://x/y&expires="))
        #expect(URLSignature.verify(redirect, keys: keys, now: now) == .valid)
        // A token's signature is not a URL's: the domains differ.
        let token = try AccessToken(kind: .access, user: "u", groups: [], expires: now + 60).encoded(keys: keys)
        let forged = "/a.jpg?expires=\(now + 60)&key=new&signature=" + token.split(separator: ".").last!
        #expect(URLSignature.verify(forged, keys: keys, now: now) != .valid)
    }

    @Test func tokensAreOfOneKindSignedAndExpire() throws {
        let keys = try SigningKeys(text: Self.keysText)
        let now = 1_800_000_000
        let token = AccessToken(kind: .access, user: "alice", groups: ["staff", "x.y"], expires: now + 60)
        let text = try token.encoded(keys: keys)
        #expect(AccessToken(text, kind: .access, keys: keys, now: now) == token)
        #expect(AccessToken(text, kind: .probe, keys: keys, now: now) == nil)
        #expect(AccessToken(text, kind: .access, keys: keys, now: now + 60) == nil)
        let parts = text.split(separator: ".")
        let other = AccessSecrets.base64URL(Array("access\nmallory\nstaff\n\(now + 60)".utf8))
        #expect(AccessToken(other + "." + parts[1] + "." + parts[2], kind: .access, keys: keys, now: now) == nil)
        #expect(AccessToken("garbage", kind: .access, keys: keys, now: now) == nil)
        #expect(AccessToken(String(repeating: "a.", count: 3000), kind: .access, keys: keys, now: now) == nil)
        // Another server given the same keys file accepts it (nothing is kept per session); one
        // with other keys does not.
        let sameFile = try SigningKeys(text: Self.keysText)
        #expect(AccessToken(text, kind: .access, keys: sameFile, now: now) == token)
        let elsewhere = try SigningKeys(text: "new \(Data(repeating: 1, count: 32).base64EncodedString())")
        #expect(AccessToken(text, kind: .access, keys: elsewhere, now: now) == nil)
    }

    @Test func usersAreHashedWithScryptAndCheckedWhole() throws {
        var users = UserFile()
        try users.set("alice", password: "correct horse", groups: ["staff"])
        try users.set("bob", password: "another one", groups: [])
        let text = users.text
        #expect(text.hasPrefix("alice:staff:$scrypt$ln=15,r=8,p=1$"))
        #expect(!text.contains("correct horse"))
        let read = try UserFile(text: text)
        #expect(read.authenticate("alice", password: "correct horse")?.groups == ["staff"])
        #expect(read.authenticate("alice", password: "correct hors") == nil)
        #expect(read.authenticate("bob", password: "correct horse") == nil)
        #expect(read.authenticate("carol", password: "correct horse") == nil)
        // Two hashes of one password differ (salted).
        var again = read
        try again.set("alice", password: "correct horse", groups: ["staff"])
        #expect(again.users.first?.hash != read.users.first?.hash)
        let removed = again.remove("bob"), removedAgain = again.remove("bob")
        #expect(removed && !removedAgain)
        for bad in [
            "alice", "alice:staff", "al ice::$scrypt$ln=15,r=8,p=1$AAAA$AAAA",
            "alice::$scrypt$ln=40,r=8,p=1$AAAA$" + String(repeating: "A", count: 43),
        ] {
            #expect(throws: AccessPolicyError.self, "\(bad)") { try UserFile(text: bad) }
        }
        #expect(throws: AccessPolicyError.self) { try again.set("x", password: "short", groups: []) }
        #expect(throws: AccessPolicyError.self) { try again.set("bad name", password: "long enough", groups: []) }
    }

    @Test func hashesMatchPythonsScrypt() throws {
        // hashlib.scrypt(b"password", salt=b"NaCl", n=1024, r=8, p=16, dklen=32), RFC 7914's second vector (first 32 bytes).
        let key = try AccessSecrets.scrypt("password", salt: Array("NaCl".utf8), logN: 10, r: 8, p: 16)
        #expect(key.prefix(8) == [0xfd, 0xba, 0xbe, 0x1c, 0x9d, 0x34, 0x72, 0x00])
    }

    @Test func failedLoginsAreThrottledPerUserAndAddress() {
        let throttle = LoginThrottle(perUser: 3, perAddress: 5, window: .seconds(600))
        for _ in 0..<3 { throttle.fail(user: "alice", address: "10.0.0.1") }
        #expect(!throttle.allows(user: "alice", address: "10.0.0.2"))
        #expect(throttle.allows(user: "bob", address: "10.0.0.1"))
        for name in ["b", "c"] { throttle.fail(user: name, address: "10.0.0.1") }
        #expect(!throttle.allows(user: "dave", address: "10.0.0.1"))
        #expect(throttle.allows(user: "dave", address: "10.0.0.3"))
        let expired = LoginThrottle(perUser: 1, perAddress: 1, window: .zero)
        expired.fail(user: "a", address: "b")
        #expect(expired.allows(user: "a", address: "b"))
    }
}

@Suite("Watermarks")
struct WatermarkTests {
    @Test func textIsDrawnIntoThePixelsInTheirFormat() throws {
        for format in [PixelFormat.rgb8, .rgba8, .gray8, .grayAlpha8] {
            let black = PixelBuffer(
                width: 300, height: 120, format: format, bytes: [UInt8](repeating: format.hasAlpha ? 0 : 0, count: 300 * 120 * format.bytesPerPixel))
            var opaque = black
            if let alpha = format.alphaChannelIndex {
                for index in stride(from: alpha, to: opaque.bytes.count, by: format.bytesPerPixel) { opaque.bytes[index] = 255 }
            }
            let marked = try Watermark.draw("Preview", on: opaque)
            #expect(marked.format == format && marked.size == opaque.size)
            let colour = format.hasAlpha ? format.bytesPerPixel - 1 : format.bytesPerPixel
            let lit = (0..<(300 * 120)).filter { marked.bytes[$0 * format.bytesPerPixel] > 60 }.count
            // The text covers a good part of the image, not all of it.
            #expect(lit > 300 * 120 / 50 && lit < 300 * 120 / 2, "\(format): \(lit)")
            if colour == 3 {
                // White text: the channels move together.
                #expect((0..<(300 * 120)).allSatisfy { marked.bytes[$0 * format.bytesPerPixel] == marked.bytes[$0 * format.bytesPerPixel + 2] })
            }
        }
    }
}
