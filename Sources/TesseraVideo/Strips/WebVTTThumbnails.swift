/// A WebVTT thumbnail track: one cue per strip slot, pointing at the slot's frame in a sprite
/// sheet with a media fragment (`sprite.jpg#xywh=x,y,w,h`), as video.js and JW Player read it.
public enum WebVTTThumbnails {
    /// The track's text. `imageURL` is how the track refers to the sheet, usually its file name.
    public static func track(strip: FrameStrip, sheet: FrameSheet, imageURL: String) -> String {
        var text = "WEBVTT\n"
        for (frame, placement) in zip(strip.frames, sheet.placements) {
            text += "\n\(timestamp(frame.slot.start)) --> \(timestamp(frame.slot.end))\n"
            text += "\(imageURL)#xywh=\(placement.x),\(placement.y),\(placement.width),\(placement.height)\n"
        }
        return text
    }

    /// `hh:mm:ss.ttt`, the form WebVTT requires (hours always present, milliseconds rounded).
    static func timestamp(_ seconds: Double) -> String {
        let milliseconds = Int((max(0, seconds) * 1000).rounded())
        let hours = milliseconds / 3_600_000
        let minutes = milliseconds / 60_000 % 60
        let wholeSeconds = milliseconds / 1000 % 60
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(hours, 2)):\(pad(minutes, 2)):\(pad(wholeSeconds, 2)).\(pad(milliseconds % 1000, 3))"
    }
}
