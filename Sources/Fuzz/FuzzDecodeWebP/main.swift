import FuzzSupport
import TesseraCodecs

// Decode, thumbnail and streamed rows of WebP files (FuzzSupport's ImageHarness).
fuzzMain { ImageHarness.run($0, formats: [.webp]) }
