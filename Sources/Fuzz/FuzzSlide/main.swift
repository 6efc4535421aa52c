import FuzzSupport
import TesseraCodecs
import TesseraTiles

// The slide kinds `tessera serve` asks first of every TIFF: the file's directories listed from
// their tags, an Aperio description parsed and its levels told from its other images, an OME-XML
// description parsed and its SubIFD levels found, the levels opened (missing tiles allowed), and of
// every level its first and last tiles decoded and given as stored (the shared JPEG tables spliced in).
let scratch = ScratchDirectory()

fuzzMain { data in
    // A pool per input: a reader kept for one input's identity must not answer for another's.
    let readers = TIFFReaderPool(readersPerFile: 1)
    var verdict = FuzzVerdict.rejected
    for kind: any RegionSourceKind in [AperioSlideKind(readers: readers), OMETIFFKind(readers: readers)] {
        verdict = SlideHarness.run(data, in: scratch, as: "input.svs", kind: kind) {
            ImageFormat(sniffing: $0.prefix(ImageFormat.sniffLength)) == .tiff
        }
    }
    return verdict
}
