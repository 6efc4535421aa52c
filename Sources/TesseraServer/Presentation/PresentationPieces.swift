import FoundationEssentials
import TesseraCodecs
import TesseraCore
import TesseraIIIF
import TesseraVideo

/// The pieces Presentation documents are made of, from what is known of a file or folder:
/// canvases, the original file, folder references, metadata. Pure functions: the documents'
/// writers (`PresentationService`, `StaticPresentation`) decide what to make.
enum PresentationPieces {
    /// A canvas of `size` painted with the image its service serves, with a thumbnail. The canvas
    /// is the image's full size even where the painted file is smaller (a static host's coarsest
    /// level): viewers draw the service's tiles on it.
    static func imageCanvas(id: String, service: String, size: PixelSize, label: LanguageMap?, side: Int, urls: PresentationURLs) -> IIIFCanvas {
        var canvas = IIIFCanvas(
            id: id, content: urls.paintedImage(service: service, size: size), label: label,
            thumbnail: [urls.thumbnail(service: service, size: size, side: side)])
        (canvas.width, canvas.height) = (size.width, size.height)
        return canvas
    }

    static func videoCanvas(id: String, video: VideoProperties, encoded: String, path: String, urls: PresentationURLs) -> IIIFCanvas {
        let content = ContentResource(
            id: urls.video(encoded), type: "Video", format: VideoService.mediaType(of: path), width: video.displayWidth,
            height: video.displayHeight, duration: video.duration)
        // One frame from the frame-strip code, 144 pixels high.
        let still = urls.videoStill(encoded).map { ContentResource(id: $0, type: "Image", format: "image/jpeg") }
        return IIIFCanvas(id: id, content: content, thumbnail: still.map { [$0] } ?? [])
    }

    /// The file as it is stored, offered for download where it is served.
    static func original(_ format: ImageFormat, encoded: String, bytes: Int, urls: PresentationURLs) -> ContentResource? {
        guard let url = urls.file(encoded) else { return nil }
        return ContentResource(
            id: url, type: format == .pdf ? "Text" : "Image", format: format.mediaType,
            label: LanguageMap.text("Original file (\(format.rawValue.uppercased()), \(byteText(bytes)))", language: "en"))
    }

    static func folderReference(_ directory: String, urls: PresentationURLs) -> ResourceReference {
        ResourceReference(
            id: urls.collection(directory), type: "Collection", label: LanguageMap([directory.isEmpty ? "/" : split(directory).name]))
    }

    static func imageMetadata(_ properties: ImageProperties) -> [LabelValue] {
        let size = properties.displaySize
        return [
            entry("Size", "\(size.width) × \(size.height) pixels"),
            entry("Format", properties.format.rawValue.uppercased()),
            entry("File size", byteText(properties.fileByteCount)),
        ]
    }

    static func videoMetadata(_ video: VideoProperties, bytes: Int) -> [LabelValue] {
        [
            entry("Size", "\(video.displayWidth) × \(video.displayHeight) pixels"),
            entry("Format", video.codec),
            entry("Duration", oneDecimal(video.duration) + " s"),
            entry("File size", byteText(bytes)),
        ]
    }

    static func entry(_ label: String, _ value: String) -> LabelValue {
        LabelValue(label: .text(label, language: "en"), value: LanguageMap([value]))
    }

    /// `bytes` for people: `950 B`, `12.3 KB`, `4.5 MB`, `1.2 GB` (powers of 1000).
    static func byteText(_ bytes: Int) -> String {
        guard bytes >= 1000 else { return "\(bytes) B" }
        var value = Double(bytes) / 1000
        for unit in ["KB", "MB", "GB"] {
            if value < 1000 || unit == "GB" { return oneDecimal(value) + " " + unit }
            value /= 1000
        }
        return "\(bytes) B"
    }

    /// `value` with one decimal: `12.3`.
    static func oneDecimal(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// A relative path's folder ("" at the root) and last component.
    static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return ("", path) }
        return (String(path[..<slash]), String(path[path.index(after: slash)...]))
    }
}
