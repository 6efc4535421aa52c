/// One page of a directory under the root, as `GET /api/assets` answers it: subdirectories, then
/// the images and videos Tessera reads, in natural name order (`photo-2` before `photo-10`).
/// An image that cannot be read is listed with its error; files that are neither an image nor a
/// video (no image format, and no container ffmpeg opens) are counted in ``skipped`` and left out.
struct AssetListing: Encodable, Sendable {
    /// One directory, image or video.
    struct Entry: Encodable, Sendable {
        enum Kind: String, Encodable, Sendable {
            case directory, image, video
        }

        var kind: Kind
        /// The file name.
        var name: String
        /// The path relative to the root, `/`-separated (what `dir=` takes for a directory).
        var path: String
        /// The identifier routes take: ``path`` percent-encoded, `/` as `%2F`.
        var id: String
        /// File size in bytes; nil for a directory.
        var bytes: Int?
        /// Display size in pixels (orientation applied); nil for a directory.
        var width: Int?
        var height: Int?
        /// The image format (`jpeg`, `png`, …) or the video codec (`h264`, `vp9`, …).
        var format: String?
        /// Seconds, for a video.
        var duration: Double?
        /// Why an image could not be read (`corrupt: …`, `unsupported: PCX images are not read`);
        /// such an entry has no size or format.
        var error: String?
    }

    /// The directory listed, relative to the root ("" for the root).
    var dir: String
    /// The parent directory, relative to the root; nil at the root.
    var parent: String?
    var entries: [Entry]
    /// The cursor of the next page (`cursor=`), nil on the last page.
    var next: String?
    /// Files on this page that are neither an image nor a video Tessera reads, or unreadable videos.
    var skipped: Int
}

extension AssetListing {
    /// `a` before `b` in natural order: runs of digits compare by value, everything else by
    /// Unicode scalar, so `photo-9` < `photo-10` and the order is total and stable.
    static func naturallyBefore(_ a: String, _ b: String) -> Bool {
        naturallyBefore(Array(a.unicodeScalars), Array(b.unicodeScalars))
    }

    /// ``naturallyBefore(_:_:)`` of names already split into scalars (a sort splits each once).
    static func naturallyBefore(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Bool {
        var left = a[...]
        var right = b[...]
        while let l = left.first, let r = right.first {
            if l.properties.numericType == .decimal, r.properties.numericType == .decimal {
                let leftDigits = left.prefix { $0.properties.numericType == .decimal }
                let rightDigits = right.prefix { $0.properties.numericType == .decimal }
                let leftValue = leftDigits.drop { $0 == "0" }
                let rightValue = rightDigits.drop { $0 == "0" }
                if leftValue.count != rightValue.count { return leftValue.count < rightValue.count }
                if !leftValue.elementsEqual(rightValue) { return leftValue.lexicographicallyPrecedes(rightValue) }
                // Equal values: fewer leading zeros first, so the order stays total.
                if leftDigits.count != rightDigits.count { return leftDigits.count < rightDigits.count }
                left = left.dropFirst(leftDigits.count)
                right = right.dropFirst(rightDigits.count)
            } else {
                if l != r { return l.value < r.value }
                left = left.dropFirst()
                right = right.dropFirst()
            }
        }
        return left.isEmpty && !right.isEmpty
    }
}
