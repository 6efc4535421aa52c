public import Foundation

/// The documents web-map clients open a map by: TileJSON 3.0 (MapLibre, Leaflet plugins) and
/// OGC WMTS 1.0 capabilities (OpenLayers, QGIS, ArcGIS), both pointing at the same `{z}/{x}/{y}`
/// tiles of the WebMercatorQuad grid.
public enum MapDocuments {
    /// TileJSON 3.0 of `map`, named `name`, whose tiles are at `tilesURL` (a template with `{z}`,
    /// `{x}` and `{y}`).
    public static func tileJSON(_ map: MapSource, name: String, tilesURL: String) -> Data {
        let bounds = map.bounds
        let centre = [(bounds.west + bounds.east) / 2, (bounds.south + bounds.north) / 2, Double(map.zooms.lowerBound)]
        let document: [String: Any] = [
            "tilejson": "3.0.0", "name": name, "scheme": "xyz", "tiles": [tilesURL], "minzoom": map.zooms.lowerBound,
            "maxzoom": map.zooms.upperBound, "bounds": [bounds.west, bounds.south, bounds.east, bounds.north], "center": centre,
        ]
        // Sorted keys: the same map gives the same bytes, so its entity tag holds.
        return (try? JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
    }

    /// WMTS 1.0 capabilities of `map` as one layer `name` in the WebMercatorQuad tile matrix set
    /// (its zooms only), with a RESTful resource template `tilesURL` (`{TileMatrix}`, `{TileCol}`,
    /// `{TileRow}`) in `format` (a media type).
    public static func capabilities(_ map: MapSource, name: String, tilesURL: String, format: String) -> Data {
        let bounds = map.bounds
        let matrices = map.zooms.map { zoom in
            let count = 1 << zoom
            return """
                  <TileMatrix><ows:Identifier>\(zoom)</ows:Identifier><ScaleDenominator>\(scaleDenominator(zoom: zoom))</ScaleDenominator>\
                <TopLeftCorner>-20037508.3427892 20037508.3427892</TopLeftCorner><TileWidth>256</TileWidth><TileHeight>256</TileHeight>\
                <MatrixWidth>\(count)</MatrixWidth><MatrixHeight>\(count)</MatrixHeight></TileMatrix>
                """
        }
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <Capabilities xmlns="http://www.opengis.net/wmts/1.0" xmlns:ows="http://www.opengis.net/ows/1.1" \
            xmlns:xlink="http://www.w3.org/1999/xlink" version="1.0.0">
              <ows:ServiceIdentification><ows:Title>Tessera</ows:Title><ows:ServiceType>OGC WMTS</ows:ServiceType>\
            <ows:ServiceTypeVersion>1.0.0</ows:ServiceTypeVersion></ows:ServiceIdentification>
              <Contents>
                <Layer>
                  <ows:Title>\(escaped(name))</ows:Title>
                  <ows:WGS84BoundingBox><ows:LowerCorner>\(bounds.west) \(bounds.south)</ows:LowerCorner>\
            <ows:UpperCorner>\(bounds.east) \(bounds.north)</ows:UpperCorner></ows:WGS84BoundingBox>
                  <ows:Identifier>\(escaped(name))</ows:Identifier>
                  <Style isDefault="true"><ows:Identifier>default</ows:Identifier></Style>
                  <Format>\(format)</Format>
                  <TileMatrixSetLink><TileMatrixSet>WebMercatorQuad</TileMatrixSet></TileMatrixSetLink>
                  <ResourceURL format="\(format)" resourceType="tile" template="\(escaped(tilesURL))"/>
                </Layer>
                <TileMatrixSet>
                  <ows:Identifier>WebMercatorQuad</ows:Identifier>
                  <ows:SupportedCRS>urn:ogc:def:crs:EPSG::3857</ows:SupportedCRS>
                  <WellKnownScaleSet>urn:ogc:def:wkss:OGC:1.0:GoogleMapsCompatible</WellKnownScaleSet>
            \(matrices.joined(separator: "\n"))
                </TileMatrixSet>
              </Contents>
            </Capabilities>

            """
        return Data(text.utf8)
    }

    /// WMTS's scale denominator of a zoom: its metres per pixel over the standard 0.28 mm pixel.
    static func scaleDenominator(zoom: Int) -> Double { WebMercatorTile.side(zoom: zoom) / 256 / 0.000_28 }

    /// `text` fit for an XML attribute or element.
    private static func escaped(_ text: String) -> String {
        text.replacing("&", with: "&amp;").replacing("<", with: "&lt;").replacing(">", with: "&gt;").replacing("\"", with: "&quot;")
    }
}
