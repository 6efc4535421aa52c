// swift-tools-version:6.1
import PackageDescription

/// A system library reached through pkg-config, with the apt package that provides it.
func systemLibrary(_ name: String, pkgConfig: String?, apt: String) -> Target {
    .systemLibrary(name: name, pkgConfig: pkgConfig, providers: [.apt([apt])])
}

/// The compiler checks the layering: a module sees only the members of modules it imports itself
/// (not those another file or a dependency happened to import), and imports are internal unless a
/// public signature needs them, so a layer cannot leak what it stands on.
let layered: [SwiftSetting] = [
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// AsyncHTTPClient and the NIO types its requests and responses are made of: what object storage (S3),
/// the pipeline's HTTP loader and the server's external access check all speak.
let httpClient: [Target.Dependency] = [
    .product(name: "AsyncHTTPClient", package: "async-http-client"),
    .product(name: "NIOCore", package: "swift-nio"),
    .product(name: "NIOHTTP1", package: "swift-nio"),
]

let package = Package(
    name: "Tessera",
    platforms: [.macOS(.v13)],
    products: [
        // One product per layer, each usable alone, and the umbrella that re-exports them all.
        .library(name: "Tessera", targets: ["Tessera"]),
        .library(name: "TesseraCore", targets: ["TesseraCore"]),
        .library(name: "TesseraCodecs", targets: ["TesseraCodecs"]),
        .library(name: "TesseraStorage", targets: ["TesseraStorage"]),
        .library(name: "TesseraPipeline", targets: ["TesseraPipeline"]),
        .library(name: "TesseraTiles", targets: ["TesseraTiles"]),
        .library(name: "TesseraViewing", targets: ["TesseraViewing"]),
        .library(name: "TesseraVideo", targets: ["TesseraVideo"]),
        .library(name: "TesseraTrimming", targets: ["TesseraTrimming"]),
        .library(name: "TesseraIIIF", targets: ["TesseraIIIF"]),
        .library(name: "TesseraServer", targets: ["TesseraServer"]),
        .executable(name: "tessera", targets: ["tessera"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // No traits: Hummingbird's defaults pull in all of Foundation and swift-configuration, which
        // every `tessera` process (not only `serve`) would then pay for at start-up.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
    ],
    targets: [
        systemLibrary("CJPEG", pkgConfig: "libjpeg", apt: "libjpeg62-turbo-dev"),
        systemLibrary("CPNG", pkgConfig: "libpng", apt: "libpng-dev"),
        systemLibrary("CWebP", pkgConfig: "libwebp", apt: "libwebp-dev"),
        systemLibrary("CGIF", pkgConfig: nil, apt: "libgif-dev"),
        systemLibrary("CZlib", pkgConfig: "zlib", apt: "zlib1g-dev"),
        .target(
            name: "CTesseraShims",
            dependencies: ["CJPEG", "CPNG"]
        ),
        // The dlopen loader the nine targets below share: each keeps its sonames and symbol list.
        .target(name: "CTesseraLoader", linkerSettings: [.linkedLibrary("dl")]),
        // ffmpeg's libraries, libheif, librsvg and libtiff, loaded with dlopen on first use (see their
        // headers for why).
        .target(name: "CTesseraAV", dependencies: ["CTesseraLoader"]),
        .target(name: "CTesseraHeif", dependencies: ["CTesseraLoader"]),
        // cairo and GLib, loaded on first use for the vector renderers: librsvg (SVG), poppler (PDF).
        .target(name: "CTesseraCairo", dependencies: ["CTesseraLoader"]),
        .target(name: "CTesseraSVG", dependencies: ["CTesseraCairo", "CTesseraLoader"]),
        .target(name: "CTesseraPDF", dependencies: ["CTesseraCairo", "CTesseraLoader"]),
        .target(name: "CTesseraTIFF", dependencies: ["CTesseraLoader"]),
        .target(name: "CTesseraJP2", dependencies: ["CTesseraLoader"]),
        .target(name: "CTesseraJXL", dependencies: ["CTesseraLoader"]),
        // OpenSlide, loaded on first use: only vendor slides pay for it and its GLib stack.
        .target(name: "CTesseraOpenSlide", dependencies: ["CTesseraLoader"]),
        .target(name: "CTesseraCrypto", dependencies: ["CTesseraLoader"]),
        // libdeflate, loaded on first use: the fast PNG encoder's DEFLATE.
        .target(name: "CTesseraDeflate", dependencies: ["CTesseraLoader"]),
        // PROJ, loaded on first use: only maps pay for it and its database.
        .target(name: "CTesseraPROJ", dependencies: ["CTesseraLoader"]),
        // LittleCMS 2, loaded on first use: only images with a colour profile pay for it.
        .target(name: "CTesseraLCMS", dependencies: ["CTesseraLoader"]),
        // libimagequant, loaded on first use: only palette PNG output pays for it.
        .target(name: "CTesseraQuant", dependencies: ["CTesseraLoader"]),
        .target(name: "TesseraCore", dependencies: ["CTesseraCrypto"], swiftSettings: layered),
        .target(
            name: "TesseraCodecs",
            dependencies: [
                "TesseraCore", "CTesseraShims", "CWebP", "CGIF", "CZlib", "CTesseraHeif", "CTesseraSVG", "CTesseraTIFF",
                "CTesseraLCMS", "CTesseraQuant", "CTesseraCairo", "CTesseraPDF", "CTesseraJP2", "CTesseraJXL", "CTesseraAV",
                "CTesseraOpenSlide", "CTesseraPROJ", "CTesseraDeflate",
            ],
            swiftSettings: layered
        ),
        .target(
            name: "TesseraTiles",
            dependencies: ["TesseraCore", "TesseraCodecs", "TesseraStorage", "TesseraPipeline", "TesseraViewing", "CTesseraShims"],
            swiftSettings: layered),
        // Object storage (the `ObjectStoring` role, the file and S3 stores, SigV4, leases): below
        // the tiles and IIIF, which store and read through it; it knows no codec.
        .target(name: "TesseraStorage", dependencies: ["TesseraCore"] + httpClient, swiftSettings: layered),
        .target(name: "TesseraPipeline", dependencies: ["TesseraCore", "TesseraCodecs"] + httpClient, swiftSettings: layered),
        .target(name: "TesseraVideo", dependencies: ["TesseraCore", "TesseraCodecs", "CTesseraAV"], swiftSettings: layered),
        // The trimming slider's model, geometry, tracking and drawing: Core alone (no C library, no
        // codec), so a native host's UI can link it unchanged.
        .target(name: "TesseraTrimming", dependencies: ["TesseraCore"], swiftSettings: layered),
        // The tiled viewer's engine: tile layouts, the viewport, visible tiles and placeholders, the
        // renderer; Core alone, like the trimming slider, so a native host's view links it unchanged.
        .target(name: "TesseraViewing", dependencies: ["TesseraCore"], swiftSettings: layered),
        .target(name: "CTesseraProcess"),
        // IIIF without HTTP: the Image API's grammar, its resolution against an image, info.json, and
        // identifiers resolved to sources under a root or in a store.
        .target(
            name: "TesseraIIIF", dependencies: ["TesseraCore", "TesseraCodecs", "TesseraStorage"], swiftSettings: layered),
        // The pages' files (Sources/CTesseraWeb/Web), compiled in with #embed.
        .target(name: "CTesseraWeb", exclude: ["Web"]),
        // The only module that imports Hummingbird.
        .target(
            name: "TesseraServer",
            dependencies: [
                "TesseraCore", "TesseraCodecs", "TesseraStorage", "TesseraTiles", "TesseraViewing", "TesseraVideo", "TesseraIIIF",
                "CTesseraProcess", "CTesseraWeb", "CTesseraCrypto",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ] + httpClient,
            swiftSettings: layered
        ),
        .target(
            name: "Tessera",
            dependencies: [
                "TesseraCore", "TesseraCodecs", "TesseraStorage", "TesseraTiles", "TesseraViewing", "TesseraPipeline", "TesseraVideo",
                "TesseraTrimming",
            ]
        ),
        .executableTarget(
            name: "tessera",
            dependencies: [
                "Tessera", "TesseraIIIF", "TesseraServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: layered
        ),
        // `make demo`'s grid experiment; not a product.
        .executableTarget(name: "tessera-demo", dependencies: ["Tessera"]),
        // `make bench`'s pipeline benchmark; not a product.
        .executableTarget(
            name: "tessera-bench",
            dependencies: ["Tessera", .product(name: "AsyncHTTPClient", package: "async-http-client")]
        ),
        .testTarget(name: "TesseraCoreTests", dependencies: ["TesseraCore"]),
        .testTarget(name: "TesseraCodecsTests", dependencies: ["TesseraCodecs", "TesseraTestSupport"]),
        .testTarget(
            name: "TesseraTilesTests",
            dependencies: ["TesseraTiles", "TesseraViewing", "TesseraStorage", "StorageTestSupport", "TesseraTestSupport", "RegionTestSupport"]),
        .testTarget(name: "TesseraVideoTests", dependencies: ["TesseraVideo"]),
        .testTarget(name: "TesseraTrimmingTests", dependencies: ["TesseraTrimming", "TesseraCore"]),
        .testTarget(name: "TesseraIIIFTests", dependencies: ["TesseraIIIF", "TesseraCore", "TesseraTestSupport"]),
        // What several test targets share: pixel differences, a TIFF writer for any layout, info.json as a
        // client reads it.
        .target(name: "TesseraTestSupport", dependencies: ["TesseraCore"], path: "Tests/TesseraTestSupport"),
        // A procedural region source with levels at any step, for the tests of the tiles and the server.
        .target(name: "RegionTestSupport", dependencies: ["TesseraTiles"], path: "Tests/RegionTestSupport"),
        // A real SeaweedFS (and a fault-injecting proxy) for the tests of object storage.
        .target(name: "StorageTestSupport", dependencies: ["TesseraStorage"], path: "Tests/StorageTestSupport"),
        .testTarget(name: "TesseraStorageTests", dependencies: ["TesseraStorage", "TesseraCodecs", "TesseraIIIF", "StorageTestSupport"]),
        .testTarget(
            name: "TesseraPipelineTests",
            dependencies: [
                "TesseraPipeline", "TesseraStorage", "StorageTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "TesseraServerTests",
            dependencies: [
                "TesseraServer", "TesseraTiles", "TesseraViewing", "TesseraVideo", "TesseraStorage", "StorageTestSupport", "TesseraTestSupport",
                "RegionTestSupport",
                "CZlib",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // The example app (Examples/EmbeddedServer: a package of its own, which depends on Tessera
        // by path, as an app would): its sources compiled and its tests run in this build too, so
        // `make test` checks them without compiling every dependency a second time (6 min 50 s on
        // two cores); `make test` checks its manifest on its own.
        .target(
            name: "EmbeddedServer", dependencies: ["TesseraServer", .product(name: "Hummingbird", package: "hummingbird")],
            path: "Examples/EmbeddedServer/Sources/EmbeddedServer"),
        .executableTarget(
            name: "embedded-server", dependencies: ["EmbeddedServer", "TesseraServer", .product(name: "Hummingbird", package: "hummingbird")],
            path: "Examples/EmbeddedServer/Sources/embedded-server"),
        .testTarget(
            name: "EmbeddedServerTests",
            dependencies: [
                "EmbeddedServer", "TesseraServer", "TesseraCodecs", "TesseraCore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Examples/EmbeddedServer/Tests/EmbeddedServerTests"),
        // Runs the built executable; depending on it makes `swift build --build-tests` build it first.
        .testTarget(name: "TesseraCLITests", dependencies: ["tessera", "StorageTestSupport", "TesseraStorage", "TesseraServer"]),
    ],
    swiftLanguageModes: [.v6]
)

// Fuzzing (issue 16): `TESSERA_FUZZ=1` (set by scripts/fuzz.py, `make fuzz`) adds one libFuzzer
// harness per untrusted-input parser under Sources/Fuzz and instruments this package's own targets
// with libFuzzer's coverage and AddressSanitizer. Without the variable none of this exists, so the
// normal build and `make test` never see it.
if Context.environment["TESSERA_FUZZ"] == "1" {
    // Linked by lld: gold (the default here) stops with an internal error on these executables.
    func harness(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
        .executableTarget(
            name: name, dependencies: ["FuzzSupport"] + dependencies, path: "Sources/Fuzz/\(name)",
            swiftSettings: layered, linkerSettings: [.unsafeFlags(["-sanitize=fuzzer,address", "-use-ld=lld"])])
    }
    package.targets += [
        // libFuzzer's driver, called from each harness's own entry point: SwiftPM links an
        // executable's entry point over the `main` that libFuzzer would bring.
        .target(name: "CFuzzerDriver", path: "Sources/Fuzz/CFuzzerDriver"),
        .target(
            name: "FuzzSupport",
            dependencies: ["CFuzzerDriver", "TesseraCore", "TesseraCodecs", "TesseraTiles"],
            path: "Sources/Fuzz/FuzzSupport",
            swiftSettings: layered
        ),
        harness("FuzzProbe", ["TesseraCodecs"]),
        harness("FuzzDecodeJPEG", ["TesseraCodecs"]),
        harness("FuzzDecodePNG", ["TesseraCodecs"]),
        harness("FuzzDecodeGIF", ["TesseraCodecs"]),
        harness("FuzzDecodeWebP", ["TesseraCodecs"]),
        harness("FuzzDecodeHEIF", ["TesseraCodecs"]),
        harness("FuzzDecodeTIFF", ["TesseraCodecs", "TesseraCore"]),
        harness("FuzzDecodeSVG", ["TesseraCodecs"]),
        harness("FuzzDecodePDF", ["TesseraCodecs"]),
        harness("FuzzDecodeJP2", ["TesseraCodecs"]),
        harness("FuzzDecodeJXL", ["TesseraCodecs"]),
        harness("FuzzDecodeStill", ["TesseraCodecs"]),
        harness("FuzzVideo", ["TesseraCore", "TesseraVideo"]),
        harness("FuzzPyramidDescriptor", ["TesseraCore", "TesseraPipeline", "TesseraTiles", "TesseraViewing"]),
        harness("FuzzSlide", ["TesseraCodecs", "TesseraTiles"]),
        harness("FuzzDICOM", ["TesseraTiles"]),
        harness("FuzzGeoTIFF", ["TesseraCodecs", "TesseraCore", "TesseraTiles"]),
        harness("FuzzCacheHeaders", ["TesseraPipeline"]),
        harness("FuzzIIIFRequest", ["TesseraCore", "TesseraStorage", "TesseraIIIF", "TesseraServer"]),
        harness("FuzzPresentationSidecar", ["TesseraIIIF"]),
        harness("FuzzAccess", ["TesseraServer", "TesseraIIIF"]),
    ]
    // The fuzz build makes the harnesses and nothing else, so one `swift build` makes them all, and no
    // other executable is linked from instrumented objects.
    package.targets.removeAll {
        ($0.type == .executable && !$0.name.hasPrefix("Fuzz")) || $0.type == .test
            || ["StorageTestSupport", "TesseraTestSupport", "RegionTestSupport", "EmbeddedServer"].contains($0.name)
    }
    package.products.removeAll { $0 is Product.Executable }
    // Only this package's code is instrumented: coverage of SwiftNIO or BoringSSL would only dilute
    // what guides the fuzzer, and compiling them plainly keeps the build short. `-enable-testing`
    // lets a harness reach the parsers the public API reaches only through the network (the
    // pipeline's Cache-Control reader, the server's Range and date headers).
    for target in package.targets where target.type != .system {
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-sanitize=fuzzer,address", "-enable-testing", "-O"])]
        target.cSettings = (target.cSettings ?? []) + [.unsafeFlags(["-fsanitize=fuzzer-no-link,address"])]
    }
}
