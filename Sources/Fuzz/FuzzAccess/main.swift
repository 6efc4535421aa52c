import FoundationEssentials
import FuzzSupport
import NIOCore

@testable import TesseraServer

// Everything access control reads from outside (issue 39): the input is read as an access policy,
// a users file, a signing keys file, an access cookie and a probe token, a signed URL's path and
// query, a login form's body, a Cookie header and a glob. Held to what the server relies on: no
// forged token or signature is accepted, what is signed verifies and stops verifying when any byte
// changes, accepted files read back the same, and a glob without wildcards matches itself only.
let keys = try! SigningKeys(
    text: "current \(AccessSecrets.base64URL([UInt8](repeating: 3, count: 32)))\nold \(AccessSecrets.base64URL([UInt8](repeating: 5, count: 24)))\n")
let now = 1_800_000_000

fuzzMain { data in
    let text = String(decoding: data, as: UTF8.self)
    var tried = false

    if let policy = try? AccessPolicy(json: Array(data), folder: "/policy") {
        tried = true
        for identifier in ["a.jpg", "staff/a.jpg", text] {
            let rule = policy.rule(for: identifier)
            precondition(rule.tier == .public || policy.restrictsAnything, "a non-public rule in a policy that restricts nothing")
            if rule.tier == .degraded { precondition(rule.substitute != nil, "a degraded rule without its substitute") }
        }
    }
    if let users = try? UserFile(text: text) {
        tried = true
        let again = try? UserFile(text: users.text)
        precondition(again?.users == users.users, "a users file did not read back the same")
    }
    if let read = try? SigningKeys(text: text), let signature = try? read.sign("message", domain: "d") {
        tried = true
        precondition(read.verify("message", domain: "d", keyName: read.signingKeyName, signature: signature), "a signature did not verify")
        precondition(!read.verify("messagE", domain: "d", keyName: read.signingKeyName, signature: signature), "another message verified")
    }
    for kind in [AccessToken.Kind.access, .probe] {
        precondition(AccessToken(text, kind: kind, keys: keys, now: now) == nil, "a forged token was accepted")
    }
    switch URLSignature.verify(text, keys: keys, now: now) {
    case .valid: preconditionFailure("a forged signature was accepted")
    case .unsigned, .invalid: break
    }
    // A path signed here verifies, and no longer does with any one byte changed.
    if text.hasPrefix("/"), !text.contains("#"), let signed = try? URLSignature.sign(text, keys: keys, expires: now + 60) {
        tried = true
        precondition(URLSignature.verify(signed, keys: keys, now: now) == .valid, "a signed URL did not verify")
        var bytes = Array(signed.utf8)
        let position = Int(data.reduce(0) { ($0 &* 31) &+ Int($1) } & 0x7fff_ffff) % bytes.count
        bytes[position] = bytes[position] == UInt8(ascii: "x") ? UInt8(ascii: "y") : UInt8(ascii: "x")
        let tampered = String(decoding: bytes, as: UTF8.self)
        precondition(URLSignature.verify(tampered, keys: keys, now: now) != .valid, "a changed signed URL verified: \(tampered)")
    }
    _ = AuthRoutes.form(ByteBuffer(bytes: data))
    _ = AccessControl.cookie(AccessControl.cookieName, in: [text])
    if let glob = IdentifierGlob(text) {
        tried = true
        if !text.contains("*") && !text.contains("?") {
            precondition(glob.matches(text), "a plain glob did not match itself")
            precondition(!glob.matches(text + "x"), "a plain glob matched more than itself")
        }
        _ = glob.matches("a/b/c.jpg")
    }
    return tried ? .tried : .rejected
}
