import ArgumentParser
import Tessera

/// `--json`: what every command that reports results offers.
struct JSONOption: ParsableArguments {
    @Flag(help: "One JSON object per line (keys sorted) instead of text.")
    var json = false
}

/// `--quality`: for commands that write JPEG or WebP.
struct QualityOption: ParsableArguments {
    @Option(help: "JPEG or WebP quality, 1–100.", transform: Parse.quality)
    var quality: Int?
}

/// `--keep-profile`: the source's colour profile embedded in the output instead of the pixels
/// converted to sRGB.
struct ColorOption: ParsableArguments {
    @Flag(help: "Keep an embedded colour profile: pixels as stored, the profile embedded in the output (default: converted to sRGB, untagged).")
    var keepProfile = false

    var management: ColorManagement { keepProfile ? .keepSourceProfile : .convertToSRGB }
}

/// `--jobs`: how much runs at once.
struct JobsOption: ParsableArguments {
    @Option(help: "How many run at once (default: active cores).", transform: Parse.integer(1, 1024))
    var jobs: Int = activeProcessorCount()
}
