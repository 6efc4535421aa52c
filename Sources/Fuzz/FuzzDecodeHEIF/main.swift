import FuzzSupport
import TesseraCodecs

// Decode, thumbnail and streamed rows of HEIC and AVIF files (FuzzSupport's ImageHarness): one
// container (ISO-BMFF) and one library (libheif) behind both.
fuzzMain { ImageHarness.run($0, formats: [.heic, .avif]) }
