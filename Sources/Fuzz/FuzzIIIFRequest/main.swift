import FoundationEssentials
import FuzzSupport
import TesseraCore

@testable import TesseraIIIF
@testable import TesseraServer

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// What `tessera serve` makes of a request path before it touches an image: the input is the path
// after `/iiif/3/`, `{identifier}/{region}/{size}/{rotation}/{quality}.{format}` (or any text).
// The identifier is checked and resolved under a root that holds files, a directory and symlinks
// leading out of it; the image request is parsed and resolved against images of many sizes under
// several limits. The whole text is also read as the `Range` and `If-Modified-Since` headers, and
// as the id info.json writes. Each result is held to what the server relies on.
let scratch = ScratchDirectory()
let root = scratch.path + "/root"
for directory in [root, root + "/photos"] { mkdir(directory, 0o755) }
for file in [root + "/photo.jpg", root + "/photos/pier.jpg", scratch.path + "/outside.jpg"] {
    _ = scratch.write(Data("not read".utf8), to: String(file.dropFirst(scratch.path.count + 1)))
}
symlink("../outside.jpg", root + "/escape.jpg")
symlink("/", root + "/everything")
let resolver = try! IdentifierResolver(root: root)

/// Image sizes from the smallest to larger than any decoder accepts: arithmetic on them must not trap.
let imageSizes = [(1, 1), (7, 3), (300, 200), (1000, 1000), (65_535, 2), (16_383, 16_383), (100_000, 70_000), (1 << 40, 3)]
    .map { PixelSize(width: $0.0, height: $0.1) }
/// None, the server's default, a width bound alone, and limits that leave almost nothing.
let limitSets = [
    IIIFLimits.none, ServerConfiguration(root: root, cacheDirectory: scratch.path).limits, IIIFLimits(maxWidth: 3000),
    IIIFLimits(maxWidth: 1, maxHeight: 1, maxArea: 1),
]

/// An accepted identifier names a path inside the root, and resolves only to files inside it.
func checkIdentifier(_ identifier: String) {
    guard let relative = try? IdentifierResolver.relativePath(of: identifier) else { return }
    let components = relative.split(separator: "/", omittingEmptySubsequences: false)
    precondition(
        !relative.hasPrefix("/") && !components.contains { $0.isEmpty || $0 == ".." || $0 == "." },
        "identifier \(identifier) was accepted as the path \(relative)")
    if let source = try? resolver.resolve(identifier) {
        let path = source.path ?? ""
        precondition(path.hasPrefix(resolver.rootPath + "/"), "identifier \(identifier) resolved to \(path), outside the root")
        // Its canonical name (a page's or an associated image's suffix included) names it again.
        let again = try? resolver.resolve(source.encodedIdentifier)
        precondition(again?.key == source.key && again?.path == path, "\(identifier) and \(source.encodedIdentifier) differ")
    }
}

/// A resolved request cuts a non-empty part of the image and makes an image of at least one pixel
/// within the limits; its canonical form, parsed and resolved again, is the same request.
func check(_ resolved: ResolvedIIIFRequest, of request: IIIFImageRequest, imageSize: PixelSize, limits: IIIFLimits) {
    let region = resolved.region, scaled = resolved.scaledSize
    let context = "\(request) on \(imageSize) under \(limits)"
    precondition(
        region.x >= 0 && region.y >= 0 && region.width >= 1 && region.height >= 1
            && region.x < imageSize.width && region.y < imageSize.height
            && region.width <= imageSize.width - region.x && region.height <= imageSize.height - region.y,
        "\(context) cut \(region)")
    precondition(scaled.width >= 1 && scaled.height >= 1 && limits.violation(by: scaled) == nil, "\(context) made \(scaled)")
    let canonical = resolved.canonicalPath.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
    precondition(canonical.count == 4, "\(context) has the canonical path \(resolved.canonicalPath)")
    let again = try? IIIFImageRequest(region: canonical[0], size: canonical[1], rotation: canonical[2], qualityAndFormat: canonical[3])
        .resolved(imageSize: imageSize, limits: limits)
    precondition(again == resolved, "\(context): its canonical path \(resolved.canonicalPath) resolves to \(String(describing: again))")
}

fuzzMain { data in
    let text = String(decoding: data, as: UTF8.self)
    let segments = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
    checkIdentifier(segments[0])
    if segments.count == 5,
        let request = try? IIIFImageRequest(region: segments[1], size: segments[2], rotation: segments[3], qualityAndFormat: segments[4])
    {
        for size in imageSizes {
            for limits in limitSets {
                if let resolved = try? request.resolved(imageSize: size, limits: limits) {
                    check(resolved, of: request, imageSize: size, limits: limits)
                }
            }
        }
    }
    for fileSize in [0, 1, 1000, Int.max] {
        if case .part(let bytes) = ByteRange(header: text, fileSize: fileSize) {
            precondition(bytes.lowerBound >= 0 && bytes.upperBound < fileSize, "Range \(text) gave bytes \(bytes) of a \(fileSize)-byte file")
        }
    }
    _ = HTTPDate.seconds(from: text)
    let json = IIIFImageInfo(id: text, size: PixelSize(width: 1, height: 1)).json()
    struct Document: Decodable { var id: String }
    let id = (try? JSONDecoder().decode(Document.self, from: Data(json.utf8)))?.id
    precondition(id == text, "info.json with the id \(String(reflecting: text)) reads back as \(String(describing: id))")
    return .tried
}
