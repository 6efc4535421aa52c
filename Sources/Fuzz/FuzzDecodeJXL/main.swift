import FuzzSupport
import TesseraCodecs

// Probe, decode, thumbnail and streamed rows of JPEG XL files (bare codestreams and containers)
// through libjxl (FuzzSupport's ImageHarness).
fuzzMain { data in
    ImageHarness.run(data, formats: [.jxl])
}
