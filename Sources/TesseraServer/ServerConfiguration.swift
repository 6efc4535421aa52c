public import TesseraCodecs
import TesseraCore
public import TesseraIIIF
public import TesseraStorage
public import TesseraTiles

/// Everything `tessera serve` can be told, with the defaults the README documents.
public struct ServerConfiguration: Sendable {
    /// The directory whose files are served; identifiers are paths relative to it.
    public var root: String
    /// A store whose objects are served instead of the files under ``root`` (`tessera serve
    /// s3://bucket/prefix`): identifiers are keys, read by byte ranges. Videos and the directory
    /// listing are served from a directory root only.
    public var rootStore: (any ObjectStoring)?
    /// How long what the root said of a source is trusted. For a store: that an object exists and
    /// its version (a replaced object is noticed within this time). For a directory: where an
    /// identifier's path leads, realpath and all (a symlink pointed elsewhere is followed within
    /// this time; a file changed in place is noticed at once, its identity being read every time).
    public var rootFreshness: Duration = .seconds(10)
    /// A store every server shares for pyramids (`--cache s3://bucket/prefix`), instead of
    /// ``cacheDirectory``; each pyramid is built by one server at a time, under a lease.
    public var sharedCache: (any ObjectStoring)?
    /// How long a builder's lease stands unrenewed before another server takes the build over.
    public var leaseDuration: Duration = .seconds(30)
    /// The address to listen on: loopback unless told otherwise.
    public var host = "127.0.0.1"
    /// The TCP port to listen on; 0 picks a free one (``TesseraServer/run(logger:onListening:)`` tells it).
    public var port = 8080
    /// Where built pyramids are kept (survives restarts).
    public var cacheDirectory: String
    /// The most bytes of pyramids kept; least recently used whole pyramids are removed beyond it.
    public var cacheByteLimit = 10 << 30
    /// The most bytes of decoded images, decoded tiles and encoded responses kept in memory.
    public var memoryCacheByteLimit = 256 << 20
    /// The base of every `id` in info.json and of the canonical `Link` (`https://images.example.org`);
    /// nil means the scheme `http` and the request's `Host` header.
    public var publicURL: String?
    /// Where `tessera serve` mounts all its routes: "" (the root) or a path such as `/images`
    /// (pages at `/images/`, IIIF at `/images/iiif/3/…`), for a server behind a proxy that passes
    /// the path on. An app that mounts the routes itself chooses its own paths.
    public var basePath = ""
    /// What info.json promises and every request is held to: output width, height and area.
    public var limits = IIIFLimits(maxWidth: nil, maxHeight: nil, maxArea: 40_000_000)
    /// The most pixels a source that is decoded whole may have (a decompression-bomb guard; 400
    /// above it). Sources read by rows (baseline JPEG, non-interlaced PNG, TIFF) are never held
    /// whole and are held to ``streamedRowPixelLimit`` instead, and to the request timeout.
    public var sourcePixelLimit = DecodeOptions.defaultMaximumPixelCount
    /// The widest rows of a source read by rows: what one row costs to hold (a few rows are held
    /// per level being made). 262,144 pixels: 1 MiB a row as RGBA.
    public var streamedRowPixelLimit = 262_144
    /// Sources with more pixels than this get a pyramid on first use (or are read from their own
    /// levels, for tiled multi-resolution TIFFs); smaller ones are decoded, shrunk on load, into the
    /// memory cache. Capped so that a decoded source fits the cache. 2 MP by measurement: up to
    /// there both paths serve regions at the same rate, above it pyramids are faster (README).
    public var smallSourcePixelLimit = 2_000_000
    /// Levels of a source with at most this many pixels are made whole from the source, once, and
    /// kept in memory: thumbnails, `sizes` and a viewer's first screens, at the cost of one decode
    /// at the source's cheapest reduction (JPEG's DCT scaling) and no pyramid. Finer levels are read
    /// region by region and get a pyramid in the background. 16 MP: a 16000×12000 image's level 2,
    /// which a 1280×800 screen at 2x shows of it whole.
    public var levelPixelLimit = 16_000_000
    /// IIIF tile size of the built pyramids and of info.json's `tiles`. 256, as iipsrv, Deep Zoom
    /// and most viewers use: measured against 512 on the Serving bench, unaligned regions are 25%
    /// faster (less of each decoded tile is wasted) and a build holds half the rows (peak RSS 72 vs
    /// 86 MB), for a build about 20% slower (four times the files).
    public var tileSize = 256
    /// JPEG quality of tiles and rendered images (75, libvips' default, so DZI tiles match `tessera tile`).
    public var jpegQuality = 75
    /// Colour from sources with an embedded profile: converted to sRGB, outputs untagged (the
    /// default: right on every screen and in every browser), or kept as stored with the profile
    /// embedded in every tile and image (`--keep-profile`: for clients that manage colour, with
    /// no loss from a conversion; tiles are larger by the profile).
    public var colorManagement: ColorManagement = .convertToSRGB
    /// `Cache-Control: max-age` in seconds.
    public var cacheMaxAge = 86_400
    /// A request still unanswered after this many seconds gets 503 (the pyramid build it waits on goes on).
    public var requestTimeout: Duration = .seconds(30)
    /// A connection that sends nothing for this long is closed (slow and idle clients).
    public var idleTimeout: Duration = .seconds(30)
    /// Threads for blocking work (decode, encode, resample).
    public var workerCount = activeProcessorCount()
    /// Jobs that may wait for a thread; beyond it requests get 503 with `Retry-After`.
    public var queueLimit = 64
    /// A directory to read the pages' files from on every request instead of the built-in copies
    /// (to customise or develop them); nil for the built-in ones.
    public var pagesDirectory: String?
    /// Who may see which images (`--access FILE`); nil: every image is public.
    public var access: AccessControl?
    /// Requests and decoded pixels per client per second (`--rate-limit`, `--pixel-rate`,
    /// `--trusted-proxy`); nil: no per-client limit.
    public var clientLimits: ClientLimits?
    /// On SIGTERM, in-flight requests get this long to finish before the server stops anyway.
    public var shutdownGracePeriod: Duration = .seconds(10)
    /// Whether a slide's associated images (its label, macro photo, thumbnail) are served, as
    /// `{identifier};label` and the like, and become canvases of its manifest after the slide's
    /// (`--slide-associated-images`). Off by default: a slide's label carries the patient's name
    /// or number, and its macro photo shows the label.
    public var servesAssociatedImages = false
    /// Kinds of source read before the built-in ones (a slide format, a map format), each asked in
    /// turn whether a source is of its kind (`SourcePlanner`); the built-in kinds (pyramidal
    /// TIFF, then anything the codecs decode) answer for the rest.
    public var regionSourceKinds: [any RegionSourceKind] = []

    /// Serves the images and videos under `root` (a directory, or `s3://bucket/prefix` with
    /// ``rootStore`` set), keeping pyramids and jobs in `cacheDirectory`; everything else as above.
    public init(root: String, cacheDirectory: String) {
        self.root = root
        self.cacheDirectory = cacheDirectory
    }

    /// The decoded-image budget: three quarters of the memory cache (the rest holds encoded
    /// responses). Decoded tiles are what composing regions reuses; the stored tiles viewers ask for
    /// most are read from their files, not kept here.
    var decodedCacheByteLimit: Int { memoryCacheByteLimit / 4 * 3 }

    /// The largest level of a source (in pixels) that is made whole and kept in the decoded cache
    /// rather than read region by region: ``levelPixelLimit``, within an eighth of the decoded
    /// budget (as RGBA).
    var wholeLevelPixelLimit: Int { min(levelPixelLimit, decodedCacheByteLimit / 8) }
    var responseCacheByteLimit: Int { memoryCacheByteLimit - decodedCacheByteLimit }

    /// Whether a source of `size` is decoded into memory rather than given a pyramid: small enough by
    /// configuration, and its decoded RGBA bitmap at most half the decoded-image budget.
    func isSmall(_ size: PixelSize) -> Bool {
        size.area <= smallSourcePixelLimit && size.area <= decodedCacheByteLimit / 8
    }
}
