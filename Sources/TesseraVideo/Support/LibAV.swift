import CTesseraAV
import Glibc

/// ffmpeg's function table, loaded on first use (see CTesseraAV.h for why it is not linked).
enum LibAV {
    private static let loaded: Result<TesseraAV, VideoError> = {
        var message = [CChar](repeating: 0, count: 256)
        guard let table = tessera_av_load(&message, message.count) else {
            return .failure(.librariesUnavailable(reason: text(message)))
        }
        return .success(table.pointee)
    }()

    /// The table, or the reason the libraries could not be loaded.
    static func table() throws(VideoError) -> TesseraAV { try loaded.get() }

    /// libav's text for an error code, for messages only; decisions use the code itself.
    static func message(_ code: Int32) -> String {
        guard let av = try? table() else { return "error \(code)" }
        var buffer = [CChar](repeating: 0, count: 128)
        _ = av.av_strerror(code, &buffer, buffer.count)
        return text(buffer)
    }

    /// A NUL-terminated C string filled into a buffer.
    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self)
    }

    static let again = tessera_averror(EAGAIN)
    static let endOfFile = tessera_averror_eof()
    static let invalidData = tessera_averror_invalid_data()
    static let noTimestamp = tessera_av_nopts_value()
}

extension AVRational {
    /// num ÷ den (seconds per tick for a time base, frames per second for a rate); 0 when unset.
    var value: Double { den == 0 ? 0 : Double(num) / Double(den) }
}
