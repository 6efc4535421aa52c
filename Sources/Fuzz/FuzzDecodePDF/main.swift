import FuzzSupport
import TesseraCodecs

// Decode, thumbnail and streamed rows of PDF files (FuzzSupport's ImageHarness), and the second
// page, whose lookup walks the page tree further.
fuzzMain { data in
    ImageHarness.run(data, formats: [.pdf]) { data in
        let options = DecodeOptions(maximumPixelCount: ImageHarness.maximumPixelCount, pageIndex: 1)
        _ = try? ImageDecoder(options: options).decode(.data(data))
    }
}
