import EmbeddedServer
import Hummingbird
import TesseraServer

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// embedded-server ROOT CACHE [PORT]: the app on 127.0.0.1, the images under ROOT at
// /images/iiif/3/{identifier}/…, for the token "letmein".
let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    print("usage: embedded-server ROOT CACHE [PORT]")
    exit(64)
}
let configuration = ServerConfiguration(root: arguments[1], cacheDirectory: arguments[2])
let tessera = try TesseraServer(configuration: configuration)
let app = Application(
    router: makeRouter(tessera: tessera, users: ["letmein": "ada"]),
    configuration: .init(address: .hostname("127.0.0.1", port: arguments.count > 3 ? Int(arguments[3]) ?? 8080 : 8080)))
try await app.runService()
