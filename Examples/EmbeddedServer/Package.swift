// swift-tools-version:6.1
import PackageDescription

// An app of its own that serves Tessera's IIIF routes beside its own: it depends on Tessera by
// path, as an app would on a release, and on Hummingbird for everything else.
let package = Package(
    name: "EmbeddedServer",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "Tessera", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
    ],
    targets: [
        .target(
            name: "EmbeddedServer",
            dependencies: [
                .product(name: "TesseraServer", package: "Tessera"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        ),
        .executableTarget(name: "embedded-server", dependencies: ["EmbeddedServer"]),
        .testTarget(
            name: "EmbeddedServerTests",
            dependencies: [
                "EmbeddedServer",
                .product(name: "TesseraCodecs", package: "Tessera"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
