import FuzzSupport
import TesseraCodecs

// Probe, decode, thumbnail and streamed rows of BMP, ICO/CUR, PNM/PAM and TGA files: the headers
// Tessera reads itself, then ffmpeg's image decoders (FuzzSupport's ImageHarness).
fuzzMain { data in
    ImageHarness.run(data, formats: [.bmp, .ico, .pnm, .tga])
}
