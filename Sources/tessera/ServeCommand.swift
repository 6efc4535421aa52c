import ArgumentParser
import FoundationEssentials
import Tessera
import TesseraIIIF
import TesseraServer

#if canImport(Glibc)
    import Glibc
#endif

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the images under ROOT over IIIF Image API 3.0 and Deep Zoom, building pyramids on demand.",
        discussion: """
            Pages: / (the files under ROOT), /view/{id} (deep-zoom viewer), /grid?dir=… (image grid), \
            /trim/{id} (video trimmer). Routes: /iiif/3/{id}/info.json, \
            /iiif/3/{id}/{region}/{size}/{rotation}/{quality}.{format}, /dzi/{id}.dzi, \
            /dzi/{id}_files/{level}/{col}_{row}.jpeg, /video/{id} (+ /info.json, /sprite.jpg, \
            /thumbnails.vtt, POST /trim), /jobs/{job}, /api/assets, /health, /metrics. An identifier is a \
            path relative to ROOT with / written %2F. Stops gracefully on SIGTERM or SIGINT.
            """
    )

    @Argument(
        help: ArgumentHelp(
            "The directory whose images are served (not scanned at start-up), or s3://BUCKET/PREFIX.",
            discussion:
                "In S3, identifiers are keys under PREFIX, read by byte ranges; credentials, region and endpoint come from the AWS_* variables (README)."
        ))
    var root: String

    @Option(help: "The address to listen on (loopback unless told otherwise).")
    var host = "127.0.0.1"

    @Option(help: "The port, 0–65535 (0: any free port, printed at start-up).", transform: Parse.integer(0, 65535))
    var port = 8080

    @Option(help: "Where built pyramids are kept (default: $XDG_CACHE_HOME/tessera or ~/.cache/tessera).")
    var cacheDir: String?

    @Option(
        help: ArgumentHelp(
            "A pyramid store every server shares, s3://BUCKET/PREFIX, instead of --cache-dir.",
            discussion: "Each pyramid is built once among all servers, under a lease; the store's lifecycle rules expire them."))
    var cache: String?

    @Option(
        help: "Seconds a builder's lease on a shared pyramid stands unrenewed before another server takes over (default 30).",
        transform: Parse.integer(2, 3600))
    var leaseSeconds = 30

    @Option(
        help: "The most MiB of pyramids kept on disk, least recently used evicted (default 10240).",
        transform: Parse.integer(1))
    var cacheSize = 10_240

    @Option(help: "The most MiB of decoded images and responses kept in memory (default 256).", transform: Parse.integer(1))
    var memoryCache = 256

    @Option(
        help: "The base URL clients reach the server by, for info.json ids (default: http:// and the Host header).",
        transform: Parse.httpURL)
    var publicURL: String?

    @Option(help: "Serve everything under this path, such as /images (default: at the root).", transform: Parse.basePath)
    var basePath = ""

    @Option(
        help: "The most pixels one response may have, advertised as maxArea (default 40000000).",
        transform: Parse.integer(1))
    var maxArea = 40_000_000

    @Option(help: "The most pixels a source may have (default 268402689).", transform: Parse.integer(1))
    var maxSourcePixels = DecodeOptions.defaultMaximumPixelCount

    @Option(help: "Cache-Control max-age in seconds (default 86400).", transform: Parse.integer(0))
    var maxAge = 86_400

    @Option(
        help: "Sources of at most this many pixels are decoded into memory; larger ones get pyramids (default 2000000).",
        transform: Parse.integer(0))
    var smallSourcePixels = 2_000_000

    @Option(
        help: ArgumentHelp(
            "Levels of a source of at most this many pixels are decoded whole, once, and kept in memory (default 16000000).",
            discussion:
                "Thumbnails, sizes and a viewer's first screens come from them; finer levels are read by region and get a pyramid in the background."),
        transform: Parse.integer(0))
    var levelPixels = 16_000_000

    @Option(
        help: "Side in pixels of the IIIF tiles of built pyramids and info.json, 64–4096 (default 256).",
        transform: Parse.integer(64, 4096))
    var tileSize = 256

    @Option(
        help: "Seconds a request may take before it is answered 503 (the build it waits on goes on; default 30).",
        transform: Parse.integer(1, 86_400))
    var requestTimeout = 30

    @Option(help: "Read the web pages' files from this directory on every request instead of the built-in ones (to customise or develop them).")
    var pages: String?

    @Option(
        help: ArgumentHelp(
            "A JSON access policy: which images are public, degraded or restricted, and who may see them (docs/security.md).",
            discussion: "Images not everyone may see get IIIF Authorization Flow 2.0 services at /auth (login, token, probe, logout)."))
    var access: String?

    @Option(
        help: ArgumentHelp(
            "Requests per second each client may make, sustained (a second's worth at once); beyond it 429 with Retry-After.",
            discussion: "R or R/s. A client is its address, or its user when logged in; cheap stored tiles count as requests only."),
        transform: Parse.rate)
    var rateLimit: Double?

    @Option(help: "Megapixels each client may have decoded per second, sustained (needs --rate-limit).", transform: Parse.integer(1))
    var pixelRate: Int?

    @Option(help: "A proxy whose X-Forwarded-For names the client (repeatable; otherwise the header is ignored).")
    var trustedProxy: [String] = []

    @Flag(
        help: ArgumentHelp(
            "Serve whole-slide images' labels, macro photos and thumbnails (as IDENTIFIER;label …), as canvases of their manifests.",
            discussion: "Off by default: a slide's label carries the patient's name or number."))
    var slideAssociatedImages = false

    @OptionGroup var color: ColorOption

    func validate() throws {
        if rateLimit == nil && (pixelRate != nil || !trustedProxy.isEmpty) {
            throw ValidationError("--pixel-rate and --trusted-proxy limit clients: give --rate-limit too")
        }
        if let cache, !S3Configuration.isS3Location(cache) {
            throw ValidationError("--cache takes an s3:// location (a directory is --cache-dir)")
        }
    }

    func run() async throws {
        var configuration = ServerConfiguration(root: root, cacheDirectory: cacheDir ?? Self.defaultCacheDirectory())
        configuration.host = host
        configuration.port = port
        configuration.cacheByteLimit = cacheSize << 20
        configuration.memoryCacheByteLimit = memoryCache << 20
        configuration.publicURL = publicURL
        configuration.basePath = basePath
        configuration.limits.maxArea = maxArea
        configuration.sourcePixelLimit = maxSourcePixels
        configuration.cacheMaxAge = maxAge
        configuration.smallSourcePixelLimit = smallSourcePixels
        configuration.levelPixelLimit = levelPixels
        configuration.tileSize = tileSize
        configuration.pagesDirectory = pages
        configuration.colorManagement = color.management
        configuration.servesAssociatedImages = slideAssociatedImages
        configuration.leaseDuration = .seconds(leaseSeconds)
        configuration.requestTimeout = .seconds(requestTimeout)
        if let rateLimit {
            configuration.clientLimits = ClientLimits(
                requestsPerSecond: rateLimit, pixelsPerSecond: pixelRate.map { Double($0) * 1_000_000 },
                trustedProxies: Set(trustedProxy))
        }
        let server: TesseraServer
        do {
            let environment = ProcessInfo.processInfo.environment
            if S3Configuration.isS3Location(root) {
                configuration.rootStore = try S3ObjectStore(S3Configuration(location: root, environment: environment))
            }
            if let cache {
                configuration.sharedCache = try S3ObjectStore(S3Configuration(location: cache, environment: environment))
            }
            if let access {
                do {
                    configuration.access = try AccessControl(policy: AccessPolicy(contentsOf: access))
                } catch {
                    let failures = FailureLog()
                    failures.report(access, error)
                    try failures.exit()
                }
            }
            server = try TesseraServer(configuration: configuration)
        } catch {
            let failures = FailureLog()
            failures.report(root, error)
            try failures.exit()
            return
        }
        let host = self.host
        try await server.run { port in
            print("tessera serve: listening on http://\(host):\(port)/ (root \(root))")
            fflush(nil)  // all streams: a test or script waits for this line through a pipe
        }
    }

    static func defaultCacheDirectory() -> String {
        let environment = ProcessInfo.processInfo.environment
        if let cache = environment["XDG_CACHE_HOME"], !cache.isEmpty { return cache + "/tessera" }
        return (environment["HOME"] ?? "/tmp") + "/.cache/tessera"
    }
}
