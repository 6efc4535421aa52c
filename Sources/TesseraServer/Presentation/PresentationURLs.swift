import TesseraIIIF

/// The absolute URLs a Presentation document names, built per request from the server's base URL
/// and where each route collection is mounted.
struct PresentationURLs: Sendable, Hashable {
    /// Where the Presentation routes are: `https://host/presentation/3`.
    var presentation: String
    /// Where the IIIF Image routes are: `https://host/iiif/3`.
    var iiif: String
    /// Where `video/{identifier}` and `files/{identifier}` are: `https://host`.
    var media: String

    /// The manifest of a file or folder (`identifier` percent-encoded).
    func manifest(_ encodedIdentifier: String) -> String { Self.manifest(encodedIdentifier, presentation: presentation) }

    /// The manifest of a file or folder (`identifier` percent-encoded) served under `presentation`
    /// (where the Presentation routes are): what an image's info.json names as its `partOf`.
    static func manifest(_ encodedIdentifier: String, presentation: String) -> String {
        presentation + "/" + encodedIdentifier + "/manifest"
    }

    /// The collection of `directory` (relative to the root, decoded; "" for the root).
    func collection(_ directory: String) -> String {
        presentation + "/collection" + (directory.isEmpty ? "" : "/" + PercentEncoding.encode(directory))
    }

    /// The Image API service of an image (`identifier` percent-encoded, with its `;n` page).
    func imageService(_ encodedIdentifier: String) -> String { iiif + "/" + encodedIdentifier }

    /// A video file as the video routes serve it.
    func video(_ encodedIdentifier: String) -> String { media + "/video/" + encodedIdentifier }

    /// A file as it is stored, as the file routes serve it.
    func file(_ encodedIdentifier: String) -> String { media + "/files/" + encodedIdentifier }
}
