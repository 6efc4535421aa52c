#if canImport(Glibc)
    import Foundation
    import Testing

    /// The decompression bombs of Tests/Fixtures/bombs (scripts/make-bomb-fixtures.py), one or more
    /// per format, run as a user would: `info`, a 256-pixel thumbnail and a full decode held to 4
    /// megapixels. Each must end in a bounded thumbnail or a typed error, under 64 MiB resident.
    /// (Headers claiming gigapixels over a few bytes of PNG, TIFF, GIF and WebP data are in
    /// ``HostileHeaderTests``.)
    @Suite("Decompression bombs")
    struct DecompressionBombTests {
        enum Outcome: Sendable, CustomStringConvertible {
            /// Succeeds: `info` prints the claimed size, a thumbnail has 256 pixels on its longest side.
            case succeeds
            /// Fails with this exit status (README's table) and one stderr line naming the file.
            case fails(Int32)

            var description: String {
                switch self {
                case .succeeds: "succeeds"
                case .fails(let status): "fails with \(status)"
                }
            }
        }

        struct Bomb: Sendable, CustomStringConvertible {
            let file: String
            let claim: String
            let info: Outcome
            let thumbnail: Outcome
            var description: String { file }
        }

        static let tooLarge: Int32 = 68

        static let bombs: [Bomb] = [
            // 1.6 GB of zeros deflated 1067-fold: rows streamed through the shrink.
            Bomb(file: "bomb-40000.png", claim: "40000×40000", info: .succeeds, thumbnail: .succeeds),
            // The SOF of a 64×48 JPEG rewritten: libjpeg's 1/8 scale, the missing data read as grey.
            Bomb(file: "bombs/gigapixel-65000.jpg", claim: "65000×65000", info: .succeeds, thumbnail: .succeeds),
            // libheif's own limit (32768²) refuses the `ispe` before any decode.
            Bomb(file: "bombs/gigapixel-60000.heic", claim: "60000×60000", info: .fails(tooLarge), thumbnail: .fails(tooLarge)),
            // Vector: rendered at the thumbnail's size.
            Bomb(file: "bombs/gigapixel-100000.svg", claim: "100000×100000", info: .succeeds, thumbnail: .succeeds),
            // One 97 KB deflate strip of 100 MB: read a band of rows at a time.
            Bomb(file: "bombs/deflate-10000.tif", claim: "10000×10000", info: .succeeds, thumbnail: .succeeds),
            // 30 bytes of VP8L that libwebp would decode whole (1 GB) at any output size: refused.
            Bomb(file: "bombs/lossless-16384.webp", claim: "16384×16384", info: .succeeds, thumbnail: .fails(tooLarge)),
            // 4000 one-pixel frames: only the first is decoded.
            Bomb(file: "bombs/frames-4000.gif", claim: "2048×2048", info: .succeeds, thumbnail: .succeeds),
            // Two one-pixel frames on a 3.6-gigapixel canvas the decoder would allocate three times.
            Bomb(file: "bombs/animated-canvas-60000.webp", claim: "60000×60000", info: .fails(tooLarge), thumbnail: .fails(tooLarge)),
        ]

        @Test(
            "info, a thumbnail and a limited full decode: the expected outcome, under 64 MiB resident",
            arguments: bombs)
        func bomb(_ bomb: Bomb) throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-bomb-\(UUID())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let input = CLI.fixture(bomb.file)
            let name = URL(fileURLWithPath: input).lastPathComponent
            let thumbnail = directory.appendingPathComponent("thumbnail.png").path
            let converted = directory.appendingPathComponent("converted.png").path
            let runs: [(arguments: [String], expected: Outcome)] = [
                (["info", input], bomb.info),
                (["thumbnail", input, "--max-pixel-size", "256", "--output", thumbnail], bomb.thumbnail),
                (["convert", input, converted, "--max-pixels", "4000000"], .fails(Self.tooLarge)),
            ]
            for (arguments, expected) in runs {
                let command = arguments[0]
                let result = try CLI.measure(arguments)
                CLI.expectResident(result.peakResidentBytes, command)
                switch expected {
                case .succeeds:
                    #expect(result.status == 0, "\(command): \(result.stderr)")
                case .fails(let status):
                    #expect(result.status == status, "\(command): \(result.stderr)")
                    let lines = result.stderr.split(separator: "\n")
                    #expect(lines.count == 1 && lines[0].contains(name), "\(command): \(result.stderr)")
                }
            }
            if case .succeeds = bomb.info {
                #expect(try CLI.run(["info", input]).stdout.contains(bomb.claim))
            }
            if case .succeeds = bomb.thumbnail {
                let info = try CLI.run(["info", "--json", thumbnail])
                let object = try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any]
                let sides = [object?["width"] as? Int ?? 0, object?["height"] as? Int ?? 0]
                #expect(sides.max() == 256, "\(info.stdout)")
            } else {
                #expect(!FileManager.default.fileExists(atPath: thumbnail))
            }
            #expect(!FileManager.default.fileExists(atPath: converted))
        }
    }
#endif
