import TesseraCodecs
import Testing

@testable import TesseraTiles

/// What an OME-XML description gives: the microscope's scale, in every metric unit OME writes, and
/// nothing for text that is not OME's. The SubIFD levels, their pixels and stored tiles are checked
/// against tifffile by Tests/Browser/test_slides.py.
@Suite struct OMETIFFTests {
    static func description(_ pixelAttributes: String, element: String = "Pixels") -> String {
        #"<?xml version="1.0" encoding="UTF-8"?><OME xmlns="http://www.openmicroscopy.org/Schemas/OME/2016-06">"#
            + #"<Image ID="Image:0"><\#(element) ID="Pixels:0" \#(pixelAttributes) SizeX="10"><TiffData/></\#(element)></Image></OME>"#
    }

    @Test func theScaleIsTheFirstPixelsPhysicalSizeXInMicrometres() {
        #expect(OMEDescription(Self.description(#"PhysicalSizeX="0.25" PhysicalSizeXUnit="µm""#))?.micronsPerPixel == 0.25)
        // µm is the default unit; nm, mm and Å are converted; either quote is an attribute's.
        #expect(OMEDescription(Self.description(#"PhysicalSizeX="0.5""#))?.micronsPerPixel == 0.5)
        #expect(OMEDescription(Self.description(#"PhysicalSizeX='500' PhysicalSizeXUnit='nm'"#))?.micronsPerPixel == 0.5)
        #expect(OMEDescription(Self.description(#"PhysicalSizeX="0.001" PhysicalSizeXUnit="mm""#))?.micronsPerPixel == 1)
        #expect(OMEDescription(Self.description(#"PhysicalSizeX="2500" PhysicalSizeXUnit="Å""#))?.micronsPerPixel == 0.25)
        // A namespace prefix on the element; the first Pixels wins (the first series').
        let prefixed = Self.description(#"PhysicalSizeX = "0.75""#, element: "ome:Pixels") + "<Pixels PhysicalSizeX=\"9\">"
        #expect(OMEDescription(prefixed)?.micronsPerPixel == 0.75)
    }

    @Test func noScaleWithoutAMetricPositiveSizeAndNoDescriptionWithoutOME() {
        for attributes in [
            "", #"PhysicalSizeX="0""#, #"PhysicalSizeX="-1""#, #"PhysicalSizeX="nan""#, #"PhysicalSizeX="1" PhysicalSizeXUnit="in""#,
            #"PhysicalSizeX="1" PhysicalSizeXUnit="pixel""#, #"PhysicalSizeX="1e308" PhysicalSizeXUnit="m""#, #"PhysicalSizeX=0.5"#,
        ] {
            let description = OMEDescription(Self.description(attributes))
            #expect(description != nil && description?.micronsPerPixel == nil, "\(attributes)")
        }
        #expect(OMEDescription(#"<Pixels PhysicalSizeX="0.25">"#) == nil)
        #expect(OMEDescription("Aperio Image Library|MPP = 0.25") == nil)
        #expect(OMEDescription(#"<OME xmlns="http://www.openmicroscopy.org/Schemas/OME/2016-06"><Image/></OME>"#) == nil)
        #expect(OMEDescription("openmicroscopy.org/Schemas/OME/<Pixels PhysicalSizeX=\"") != nil)
    }
}
