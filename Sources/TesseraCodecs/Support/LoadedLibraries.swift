import CTesseraCairo
import CTesseraDeflate
import CTesseraHeif
import CTesseraJP2
import CTesseraJXL
import CTesseraOpenSlide
import CTesseraPDF
import CTesseraPROJ
import CTesseraQuant
import CTesseraSVG
import CTesseraTIFF

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The C libraries' function tables, each loaded on first use (each header says why it is not
/// linked). `try Libraries.heif.get()` gives the table, or `.libraryUnavailable` naming what could
/// not be loaded; the attempt is made once per process.
enum Libraries {
    /// libheif (CTesseraHeif.h).
    static let heif = load { tessera_heif_load($0, $1) }
    /// cairo and GLib (CTesseraCairo.h).
    static let cairo = load { tessera_cairo_load($0, $1) }
    /// librsvg (CTesseraSVG.h).
    static let rsvg = load { tessera_svg_load($0, $1) }
    /// poppler-glib (CTesseraPDF.h).
    static let poppler = load { tessera_pdf_load($0, $1) }
    /// libtiff (CTesseraTIFF.h).
    static let tiff = load { tessera_tiff_load($0, $1) }
    /// libimagequant (CTesseraQuant.h).
    static let imageQuant = load { tessera_quant_load($0, $1) }
    /// libjxl and its thread runner (CTesseraJXL.h).
    static let jxl = load { tessera_jxl_load($0, $1) }
    /// OpenJPEG (CTesseraJP2.h).
    static let openJPEG = load { tessera_jp2_load($0, $1) }
    /// OpenSlide (CTesseraOpenSlide.h).
    static let openSlide = load { tessera_openslide_load($0, $1) }
    /// libdeflate (CTesseraDeflate.h).
    static let deflate = load { tessera_deflate_load($0, $1) }
    /// PROJ (CTesseraPROJ.h).
    static let proj = load { tessera_proj_load($0, $1) }

    /// Threads OpenJPEG and libjxl encode on, and libjxl decodes on: the cores, up to 4.
    static let threadCount = max(1, min(4, sysconf(Int32(_SC_NPROCESSORS_ONLN))))

    /// Threads OpenJPEG decodes code blocks on, per decode: one. Its pool is made per codec, and a
    /// region or tile is one codec: measured (jp2_bench, 16000×12000 file, 2 cores), a level of
    /// 250×188 took 0.072 s on one thread and 0.109 s on two, 500×375 0.139 against 0.213 s, and a
    /// server's concurrent requests use the cores anyway.
    static let openJPEGDecodeThreadCount = 1
}

/// A library's table for an encoder: a missing library is the encoder's
/// ``ImageEncodingError/libraryUnavailable(_:)``, not a decoding error.
func encoderTable<Table>(_ table: Result<Table, ImageDecodingError>) throws(ImageEncodingError) -> Table {
    do throws(ImageDecodingError) {
        return try table.get()
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
