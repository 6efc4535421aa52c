/// Where one image of a TIFF is: a directory of the file's main chain, or a SubIFD, which only its
/// parent's SubIFDs tag (330) points at (OME-TIFF's and `vips tiffsave --subifd`'s reduced levels).
public enum TIFFImageAddress: Hashable, Sendable {
    /// The directory at this place in the main chain, from 0.
    case directory(Int)
    /// The SubIFD at this byte offset in the file.
    case subdirectory(offset: UInt64)
}
