import FoundationEssentials
import FuzzSupport
import TesseraCodecs

// What `tessera info` does with any file: sniff the format, then read the headers, both from bytes in
// memory and from a file (the two stream readers differ). No pixel is decoded.
let scratch = ScratchDirectory()
let decoder = ImageDecoder(options: DecodeOptions(maximumPixelCount: ImageHarness.maximumPixelCount))

fuzzMain { data in
    _ = ImageFormat(sniffing: data.prefix(ImageFormat.sniffLength))
    _ = try? decoder.probe(.data(data))
    _ = try? decoder.probe(.file(scratch.write(data, to: "input")))
    return .tried
}
