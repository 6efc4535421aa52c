import FuzzSupport
import TesseraCodecs

// Decode, thumbnail and streamed rows of JPEG files (FuzzSupport's ImageHarness); and a window read
// from a file, where a JPEG with restart markers is entered in the middle (JPEGRestartSplice
// parses its headers and scans its data for the markers).
let scratch = ScratchDirectory()
fuzzMain { data in
    ImageHarness.run(data, formats: [.jpeg]) { data in
        ImageHarness.readWindow(.file(scratch.write(data, to: "input.jpg")), seed: data.count)
    }
}
