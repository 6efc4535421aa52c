import FuzzSupport
import TesseraCodecs

// Decode, thumbnail and streamed rows of JPEG files (FuzzSupport's ImageHarness).
fuzzMain { ImageHarness.run($0, formats: [.jpeg]) }
