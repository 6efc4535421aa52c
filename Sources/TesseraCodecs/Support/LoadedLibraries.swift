import CTesseraCairo
import CTesseraHeif
import CTesseraJP2
import CTesseraJXL
import CTesseraPDF
import CTesseraQuant
import CTesseraSVG
import CTesseraTIFF

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// libheif's function table, loaded on first use (see CTesseraHeif.h for why it is not linked).
enum LibHeif {
    private static let loaded = load { tessera_heif_load($0, $1) }

    /// The table, or `.libraryUnavailable` naming what could not be loaded.
    static func table() throws(ImageDecodingError) -> TesseraHeif { try loaded.get() }
}

/// cairo's and GLib's function table, loaded on first use (see CTesseraCairo.h).
enum LibCairo {
    private static let loaded = load { tessera_cairo_load($0, $1) }

    /// The table, or `.libraryUnavailable` naming what could not be loaded.
    static func table() throws(ImageDecodingError) -> TesseraCairoTable { try loaded.get() }
}

/// librsvg's function table, loaded on first use (see CTesseraSVG.h).
enum LibRSVG {
    private static let loaded = load { tessera_svg_load($0, $1) }

    /// The table, or `.libraryUnavailable` naming what could not be loaded.
    static func table() throws(ImageDecodingError) -> TesseraSVG { try loaded.get() }
}

/// poppler-glib's function table, loaded on first use (see CTesseraPDF.h).
enum LibPoppler {
    private static let loaded = load { tessera_pdf_load($0, $1) }

    /// The table, or `.libraryUnavailable` naming what could not be loaded.
    static func table() throws(ImageDecodingError) -> TesseraPDF { try loaded.get() }
}

/// libtiff's function table, loaded on first use (see CTesseraTIFF.h).
enum LibTIFF {
    private static let loaded = load { tessera_tiff_load($0, $1) }

    /// The table, or `.libraryUnavailable` naming what could not be loaded.
    static func table() throws(ImageDecodingError) -> TesseraTIFF { try loaded.get() }
}

/// libimagequant's function table, loaded on first use (see CTesseraQuant.h).
enum LibImageQuant {
    private static let loaded = load { tessera_quant_load($0, $1) }

    /// The table, or `.libraryUnavailable` naming what could not be loaded.
    static func table() throws(ImageDecodingError) -> TesseraQuant { try loaded.get() }
}

/// libjxl's (and its thread runner's) function table, loaded on first use (see CTesseraJXL.h).
enum LibJXL {
    private static let loaded = load { tessera_jxl_load($0, $1) }

    /// The table, or `.libraryUnavailable` naming what could not be loaded.
    static func table() throws(ImageDecodingError) -> TesseraJXL { try loaded.get() }
}

/// OpenJPEG's function table, loaded on first use (see CTesseraJP2.h).
enum LibOpenJPEG {
    private static let loaded = load { tessera_jp2_load($0, $1) }

    /// The table, or `.libraryUnavailable` naming what could not be loaded.
    static func table() throws(ImageDecodingError) -> TesseraJP2 { try loaded.get() }

    /// Threads OpenJPEG and libjxl encode on, and libjxl decodes on: the cores, up to 4.
    static let threadCount = max(1, min(4, sysconf(Int32(_SC_NPROCESSORS_ONLN))))

    /// Threads OpenJPEG decodes code blocks on, per decode: one. Its pool is made per codec, and a
    /// region or tile is one codec: measured (jp2_bench, 16000×12000 file, 2 cores), a level of
    /// 250×188 took 0.072 s on one thread and 0.109 s on two, 500×375 0.139 against 0.213 s, and a
    /// server's concurrent requests use the cores anyway.
    static let decodeThreadCount = 1
}

/// A library's table for an encoder: a missing library is the encoder's
/// ``ImageEncodingError/libraryUnavailable(_:)``, not a decoding error.
func encoderTable<Table>(_ table: () throws(ImageDecodingError) -> Table) throws(ImageEncodingError) -> Table {
    do throws(ImageDecodingError) {
        return try table()
    } catch {
        throw .libraryUnavailable(error.description)
    }
}

/// Calls a C loader once, turning its failure message into the error decoding reports.
private func load<Table>(
    _ loader: (UnsafeMutablePointer<CChar>, Int) -> UnsafePointer<Table>?
) -> Result<Table, ImageDecodingError> {
    var message = [CChar](repeating: 0, count: 256)
    guard let table = loader(&message, message.count) else {
        let reason = String(decoding: message.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self)
        return .failure(.libraryUnavailable(reason: reason))
    }
    return .success(table.pointee)
}
