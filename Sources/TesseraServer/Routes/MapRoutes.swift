import HTTPTypes
import Hummingbird
import TesseraCore
import TesseraIIIF
import TesseraTiles

/// Web maps of georeferenced sources (GeoTIFF, COG), mounted anywhere (`/maps` by `tessera serve`):
/// `{identifier}/{z}/{x}/{y}.png` (also `.jpg`, `.webp`, and `@2x` before the extension for
/// 512-px tiles; `?resampling=bilinear`, nearest by default), `{identifier}/tilejson.json` and
/// `{identifier}/WMTSCapabilities.xml`. The paths are those of TiTiler's and Martin's users'
/// habits: `{z}/{x}/{y}` as every slippy map writes it, `tilejson.json` and
/// `WMTSCapabilities.xml` named as TiTiler names them, so a client's template changes only its
/// prefix. A map is a whole image: a substitute grant does not reach it.
struct MapRoutes {
    let service: ImageService

    func add<Context: RequestContext>(to routes: LabelledRoutes<Context>) {
        routes("map_document") {
            $0.get(":name/tilejson.json") { request, context in
                let (map, source, grant, base) = try await self.map(request, context)
                let body = MapDocuments.tileJSON(map, name: source.relativePath, tilesURL: base + "/{z}/{x}/{y}.png")
                return service.response(
                    ByteBuffer(bytes: body), "application/json", key: "tilejson|" + base, source: source, request: request, grant: grant)
            }
            $0.get(":name/WMTSCapabilities.xml") { request, context in
                let (map, source, grant, base) = try await self.map(request, context)
                let body = MapDocuments.capabilities(
                    map, name: source.relativePath, tilesURL: base + "/{TileMatrix}/{TileCol}/{TileRow}.png", format: "image/png")
                return service.response(
                    ByteBuffer(bytes: body), "application/xml", key: "wmts|" + base, source: source, request: request, grant: grant)
            }
        }
        routes("map_tile") {
            $0.get(":name/:z/:x/:y") { request, context in
                let name = try context.parameters.require("name"), last = try context.parameters.require("y")
                guard let dot = last.lastIndex(of: "."), let format = MapTiles.Format(rawValue: String(last[last.index(after: dot)...])) else {
                    throw ServerError(.notFound, "map tiles end in .png, .jpg or .webp")
                }
                var stem = last[..<dot], side = 256
                if stem.hasSuffix("@2x") { (stem, side) = (stem.dropLast(3), 512) }
                guard let z = Int(try context.parameters.require("z")), let x = Int(try context.parameters.require("x")), let y = Int(stem),
                    let tile = WebMercatorTile(zoom: z, x: x, y: y)
                else { throw ServerError(.notFound, "no map tile \(last)") }
                let asked = request.uri.queryParameters["resampling"].map(String.init) ?? MapResampling.nearest.rawValue
                guard let resampling = MapResampling(rawValue: asked) else { throw ServerError(.badInput, "resampling is nearest or bilinear") }
                let (source, grant) = try await service.resolve(name, for: request)
                try ImageService.requireWhole(grant)
                let body = try await service.maps.tile(for: source, tile, side: side, resampling: resampling, format: format)
                let key = MapTiles.key(tile, side: side, resampling: resampling, format: format)
                return service.response(body, format.mediaType, key: key, source: source, request: request, grant: grant)
            }
        }
    }

    /// The map a document route names, what the requester may see of it, and the URL of its
    /// tiles' folder: absolute, since TileJSON's and WMTS's templates are taken as they are.
    private func map<Context: RequestContext>(_ request: Request, _ context: Context) async throws -> (
        MapSource, ResolvedSource, AccessControl.Grant, String
    ) {
        let (source, grant) = try await service.resolve(try context.parameters.require("name"), for: request)
        try ImageService.requireWhole(grant)
        let map = try await service.maps.map(for: source)
        let base = service.configuration.baseURL(authority: request.head.authority) + context.mountPath(less: 2) + "/" + source.encodedIdentifier
        return (map, source, grant, base)
    }
}
