import FuzzSupport
import TesseraCodecs

// Decode, thumbnail, streamed rows and a window at a resolution level of JPEG 2000 files (JP2 boxes
// and raw codestreams; FuzzSupport's ImageHarness), from memory and, as `tessera serve` reads them,
// from a file (OpenJPEG then reads through pread on its descriptor).
let scratch = ScratchDirectory()

fuzzMain { data in
    ImageHarness.run(data, formats: [.jp2, .j2k]) { data in
        ImageHarness.readWindow(.file(scratch.write(data, to: "input.jp2")), seed: data.count + 1)
    }
}
