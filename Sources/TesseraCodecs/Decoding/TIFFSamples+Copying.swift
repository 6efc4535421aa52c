import CTesseraTIFF
import TesseraCore

// Copying a TIFF image's samples out as stored, or converted, into the decoder's pixels.
extension TIFFSamples {
    /// The transform that takes this file's samples to 8-bit sRGB as they are copied out
    /// (``copyStoredPixels(from:rowPixels:rows:columns:to:rowPixels:transform:)``): CMYK and Lab
    /// always (no pixel format holds them), 16-bit gray and RGB when `management` asks for sRGB
    /// and `profile` can be applied; nil for 8-bit gray and RGB, which are converted afterwards,
    /// as 8-bit rows.
    func transform(_ management: ColorManagement, profile: ICCProfile?) -> ColorTransform? {
        switch stored {
        case .direct? where bitsPerSample == 16:
            ColorConverter.shared.wideTransform(management, profile: profile, format: decodedFormat, bigEndian: false)
        case .cmyk?:
            ColorConverter.shared.cmykTransform(profile: profile, inverted: false, sixteenBit: bitsPerSample == 16)
        case .lab?:
            bitsPerSample == 16 ? ColorConverter.wideLabTransform : ColorConverter.labTransform
        default:
            nil
        }
    }

    /// Copies `rows` × `columns` pixels of one strip or tile as stored (`source`, `sourceRowPixels`
    /// pixels a row) to `destination` (`destinationRowPixels` a row) in ``decodedFormat``: the first
    /// channels of each pixel, min-is-white gray inverted, associated alpha divided out, 16-bit
    /// samples reduced to their high byte — or converted to sRGB by `transform`
    /// (``transform(_:profile:)``): 16-bit samples at 16 bits, CMYK and Lab always.
    func copyStoredPixels(
        from source: UnsafeRawBufferPointer, rowPixels sourceRowPixels: Int, rows: Int, columns: Int,
        to destination: UnsafeMutablePointer<UInt8>, rowPixels destinationRowPixels: Int, transform: ColorTransform? = nil
    ) {
        let layout = StoredRows(source: source, sourceRowPixels: sourceRowPixels, rows: rows, columns: columns)
        switch stored {
        case .cmyk?:
            if let transform { copyCMYKPixels(layout, to: destination, rowPixels: destinationRowPixels, transform: transform) }
            return
        case .lab(let signed)?:
            if let transform { copyLabPixels(layout, signed: signed, to: destination, rowPixels: destinationRowPixels, transform: transform) }
            return
        case .integer32(let signed)?:
            copyInteger32Pixels(layout, signed: signed, to: destination, rowPixels: destinationRowPixels)
            return
        default:
            break
        }
        if let transform {
            copyWidePixels(
                from: source, rowPixels: sourceRowPixels, rows: rows, columns: columns, to: destination,
                rowPixels: destinationRowPixels, transform: transform)
            return
        }
        let channels = decodedFormat.bytesPerPixel
        let bytesPerSample = bitsPerSample / 8
        let pixelBytes = samplesPerPixel * bytesPerSample
        let invert = photometric == Int(PHOTOMETRIC_MINISWHITE)
        let unpremultiply = alphaIsAssociated && decodedFormat.hasAlpha
        for row in 0..<rows {
            let sourceRow = row * sourceRowPixels * pixelBytes
            let output = destination + row * destinationRowPixels * channels
            if bytesPerSample == 1 && pixelBytes == channels && !invert && !unpremultiply {
                source.baseAddress.map { output.update(from: $0.assumingMemoryBound(to: UInt8.self) + sourceRow, count: columns * channels) }
                continue
            }
            if unpremultiply {
                for column in 0..<columns {
                    storeUnpremultiplied(source, at: sourceRow + column * pixelBytes, to: output + column * channels)
                }
                continue
            }
            for column in 0..<columns {
                let s = sourceRow + column * pixelBytes
                for channel in 0..<channels {
                    var value: UInt8
                    if bytesPerSample == 2 {
                        value = UInt8(source.loadUnaligned(fromByteOffset: s + channel * 2, as: UInt16.self) >> 8)
                    } else {
                        value = source[s + channel]
                    }
                    if invert && channel == 0 { value = 255 - value }
                    output[column * channels + channel] = value
                }
            }
        }
    }

    /// ``copyStoredPixels(from:rowPixels:rows:columns:to:rowPixels:transform:)`` for 16-bit
    /// samples converted to sRGB: each row is first laid out as ``decodedFormat``'s channels at 16
    /// bits (extra samples dropped, min-is-white inverted, associated alpha divided out), then
    /// `transform` turns it into 8-bit sRGB.
    private func copyWidePixels(
        from source: UnsafeRawBufferPointer, rowPixels sourceRowPixels: Int, rows: Int, columns: Int,
        to destination: UnsafeMutablePointer<UInt8>, rowPixels destinationRowPixels: Int, transform: ColorTransform
    ) {
        let channels = decodedFormat.bytesPerPixel
        let pixelBytes = samplesPerPixel * 2
        let invert = photometric == Int(PHOTOMETRIC_MINISWHITE)
        let unpremultiply = alphaIsAssociated && decodedFormat.hasAlpha
        var row = [UInt16](repeating: 0, count: columns * channels)
        row.withUnsafeMutableBufferPointer { wide in
            for y in 0..<rows {
                let sourceRow = y * sourceRowPixels * pixelBytes
                for column in 0..<columns {
                    let s = sourceRow + column * pixelBytes
                    let alpha = Int(source.loadUnaligned(fromByteOffset: s + (channels - 1) * 2, as: UInt16.self))
                    for channel in 0..<channels {
                        var value = Int(source.loadUnaligned(fromByteOffset: s + channel * 2, as: UInt16.self))
                        if invert && channel == 0 { value = 65535 - value }
                        if unpremultiply && channel < channels - 1 {
                            value = Self.unpremultiplied(value, alpha: alpha, maximum: 65535)
                        }
                        wide[column * channels + channel] = UInt16(value)
                    }
                }
                transform.apply(from: wide.baseAddress!, to: destination + y * destinationRowPixels * channels, pixelCount: columns)
            }
        }
    }

    /// `value` premultiplied by `alpha` (both 0…`maximum`) divided out, rounded; 0 where alpha is 0.
    static func unpremultiplied(_ value: Int, alpha: Int, maximum: Int) -> Int {
        alpha == 0 ? 0 : min(maximum, (value * maximum + alpha / 2) / alpha)
    }

    /// Stores one pixel whose colour is premultiplied by its alpha (the last of ``decodedFormat``'s
    /// channels) with the alpha divided out, at the stored precision before reducing 16 bits to 8.
    private func storeUnpremultiplied(_ source: UnsafeRawBufferPointer, at offset: Int, to output: UnsafeMutablePointer<UInt8>) {
        let channels = decodedFormat.bytesPerPixel
        let wide = bitsPerSample == 16
        let maximum = wide ? 65535 : 255
        func sample(_ channel: Int) -> Int {
            wide ? Int(source.loadUnaligned(fromByteOffset: offset + channel * 2, as: UInt16.self)) : Int(source[offset + channel])
        }
        let alpha = sample(channels - 1)
        for channel in 0..<channels {
            var value = sample(channel)
            if channel < channels - 1 {
                value = Self.unpremultiplied(value, alpha: alpha, maximum: maximum)
            }
            // 16 → 8 bits rounded, after the division, so the division keeps the stored precision.
            output[channel] = UInt8(wide ? (value * 255 + 32767) / 65535 : value)
        }
    }

    /// Stores one pixel of libtiff's RGBA converter (ABGR words, alpha premultiplied) at
    /// `destination` in ``decodedFormat``, with the alpha divided out again.
    func storeConverted(_ packed: UInt32, at destination: UnsafeMutablePointer<UInt8>) {
        let format = decodedFormat
        var red = Int(packed & 0xFF), green = Int(packed >> 8 & 0xFF), blue = Int(packed >> 16 & 0xFF)
        let alpha = Int(packed >> 24)
        if format.hasAlpha && alpha > 0 && alpha < 255 {
            red = Self.unpremultiplied(red, alpha: alpha, maximum: 255)
            green = Self.unpremultiplied(green, alpha: alpha, maximum: 255)
            blue = Self.unpremultiplied(blue, alpha: alpha, maximum: 255)
        }
        if format.isGray {
            destination[0] = UInt8(red)
        } else {
            destination[0] = UInt8(red); destination[1] = UInt8(green); destination[2] = UInt8(blue)
        }
        if format.hasAlpha { destination[format.bytesPerPixel - 1] = UInt8(alpha) }
    }
}
