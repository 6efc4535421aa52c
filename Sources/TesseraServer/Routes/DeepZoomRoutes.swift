import HTTPTypes
import Hummingbird
import TesseraCodecs
import TesseraCore
import TesseraIIIF
import TesseraTiles
import TesseraViewing

/// Deep Zoom, mounted anywhere (`/dzi` by `tessera serve`): `{identifier}.dzi` and `{identifier}_files/{level}/{column}_{row}.jpeg`,
/// tiled as `vips dzsave` tiles (254 px, overlap 1, JPEG), so OpenSeadragon opens it directly.
struct DeepZoomRoutes {
    let service: ImageService

    func add<Context: RequestContext>(to routes: LabelledRoutes<Context>) {
        routes("dzi_descriptor") {
            $0.get(":name") { request, context in
                let name = try context.parameters.require("name")
                guard name.hasSuffix(".dzi") else { throw ServerError(.notFound, "Deep Zoom descriptors end in .dzi") }
                // A substitute may have the descriptor: its tiles beyond the substitute's size are refused.
                let (source, grant) = try await service.resolve(String(name.dropLast(4)), for: request)
                let body = try await service.deepZoom.descriptor(for: source)
                return service.response(body, "application/xml", key: "dzi", source: source, request: request, grant: grant)
            }
        }
        routes("dzi_tile") {
            $0.get(":name/:level/:tile") { request, context in
                let files = try context.parameters.require("name")
                let tile = try context.parameters.require("tile")
                guard files.hasSuffix("_files"), tile.hasSuffix(".jpeg"),
                    let level = Int(try context.parameters.require("level")),
                    case let parts = tile.dropLast(5).split(separator: "_", omittingEmptySubsequences: false), parts.count == 2,
                    let column = Int(parts[0]), let row = Int(parts[1])
                else { throw ServerError(.notFound, "not a Deep Zoom tile path") }
                let (source, grant) = try await service.resolve(String(files.dropLast(6)), for: request)
                if case .substitute(let substitute) = grant {
                    // Level L of a Deep Zoom pyramid is the image divided by 2^(top − L).
                    let full = try await service.planner.properties(of: source).displaySize
                    let top = DeepZoomLayout(imageSize: full, name: "dzi").maxLevel
                    guard level <= top, substitute.allows(scaleFactor: 1 << (top - level), full: full) else {
                        throw AccessDenied.beyond(substitute)
                    }
                }
                var body = try await service.deepZoom.tile(for: source, level: level, column: column, row: row)
                if let marks = grant.marks {
                    let quality = service.configuration.jpegQuality
                    body = try await service.executor.run { [body] _ in
                        try SubstituteMarking.apply(marks, to: body, format: .jpg, jpegQuality: quality)
                    }
                }
                return service.response(
                    body, "image/jpeg", key: grant.cacheKeyPrefix + "dzi|\(level)/\(column)_\(row)", source: source, request: request, grant: grant)
            }
        }
    }
}
