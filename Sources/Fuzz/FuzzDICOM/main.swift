import FoundationEssentials
import FuzzSupport
import TesseraTiles

// A DICOM instance as the DICOM slide kind reads it, alone in its folder: the header walked
// (meta group, explicit or implicit VRs, sequences stepped over or read: shared and per-frame
// functional groups, optical paths), the frame table made (offset tables, or a walk of the
// fragments), the slide's levels opened, and of every level the first and last tiles decoded
// (JPEG, JPEG 2000, uncompressed; a sparse gap filled) and given as stored.
let scratch = ScratchDirectory()

fuzzMain { data in
    SlideHarness.run(data, in: scratch, as: "input.dcm", kind: DICOMSlideKind()) {
        $0.count >= 132 && $0[$0.startIndex + 128..<$0.startIndex + 132].elementsEqual("DICM".utf8)
    }
}
