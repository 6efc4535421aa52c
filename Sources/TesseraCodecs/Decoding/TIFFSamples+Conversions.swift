import CTesseraTIFF
import TesseraCore

// The samples no pixel format holds (CMYK, Lab, 32-bit integers), turned into the decoder's pixels.
extension TIFFSamples {
    /// The rows of one strip or tile as stored: `rows` × `columns` pixels, `sourceRowPixels` a row.
    struct StoredRows {
        var source: UnsafeRawBufferPointer
        var sourceRowPixels: Int
        var rows: Int
        var columns: Int
    }

    /// CMYK inks, 8 or 16 bits, to sRGB through `transform`
    /// (``ColorConverter/cmykTransform(profile:inverted:sixteenBit:)``, whatever the colour
    /// management: no pixel format holds CMYK), as untagged CMYK JPEGs are; alpha after them,
    /// associated alpha divided out of the inks first, at the stored precision.
    func copyCMYKPixels(
        _ stored: StoredRows, to destination: UnsafeMutablePointer<UInt8>, rowPixels destinationRowPixels: Int, transform: ColorTransform
    ) {
        let bytesPerSample = bitsPerSample / 8
        let maximum = bitsPerSample == 16 ? 65535 : 255
        let pixelBytes = samplesPerPixel * bytesPerSample
        let channels = decodedFormat.bytesPerPixel
        let columns = stored.columns
        let source = stored.source
        func sample(_ offset: Int) -> Int {
            bytesPerSample == 2 ? Int(source.loadUnaligned(fromByteOffset: offset, as: UInt16.self)) : Int(source[offset])
        }
        var inks = [UInt8](repeating: 0, count: columns * 4 * bytesPerSample)
        // With alpha, sRGB goes here first, then into the pixels beside the alpha.
        var colour = [UInt8](repeating: 0, count: decodedFormat.hasAlpha ? columns * 3 : 0)
        inks.withUnsafeMutableBytes { inks in
            for row in 0..<stored.rows {
                let sourceRow = row * stored.sourceRowPixels * pixelBytes
                let output = destination + row * destinationRowPixels * channels
                for column in 0..<columns {
                    let at = sourceRow + column * pixelBytes
                    let ink = inks.baseAddress! + column * 4 * bytesPerSample
                    ink.copyMemory(from: source.baseAddress! + at, byteCount: 4 * bytesPerSample)
                    guard decodedFormat.hasAlpha else { continue }
                    let alpha = sample(at + 4 * bytesPerSample)
                    if alphaIsAssociated {
                        for index in 0..<4 {
                            let value = Self.unpremultiplied(sample(at + index * bytesPerSample), alpha: alpha, maximum: maximum)
                            if bytesPerSample == 2 {
                                ink.storeBytes(of: UInt16(value), toByteOffset: index * 2, as: UInt16.self)
                            } else {
                                ink.storeBytes(of: UInt8(value), toByteOffset: index, as: UInt8.self)
                            }
                        }
                    }
                    output[column * 4 + 3] = UInt8(maximum == 255 ? alpha : (alpha * 255 + 32767) / 65535)
                }
                guard decodedFormat.hasAlpha else {
                    transform.apply(from: inks.baseAddress!, to: output, pixelCount: columns)
                    continue
                }
                colour.withUnsafeMutableBufferPointer { colour in
                    transform.apply(from: inks.baseAddress!, to: colour.baseAddress!, pixelCount: columns)
                    for column in 0..<columns {
                        (output + column * 4).update(from: colour.baseAddress! + column * 3, count: 3)
                    }
                }
            }
        }
    }

    /// CIELab (`signed`: a and b stored as two's complement) or ICCLab (a and b offset by half the
    /// range) to sRGB through `transform` (``ColorConverter/labTransform`` for 8 bits, in place;
    /// ``ColorConverter/wideLabTransform`` for 16, whose input is ICC v4's 16-bit Lab). Both TIFF
    /// encodings store L from 0 to the largest value for 0–100, and a and b in units of 1 (8 bits)
    /// or 1/256 (16 bits).
    func copyLabPixels(
        _ stored: StoredRows, signed: Bool, to destination: UnsafeMutablePointer<UInt8>, rowPixels destinationRowPixels: Int,
        transform: ColorTransform
    ) {
        let columns = stored.columns
        if bitsPerSample == 8 {
            // ICC's 8-bit Lab is ICCLab's own encoding; CIELab's signed bytes differ from it in the top bit.
            let flip: UInt8 = signed ? 0x80 : 0
            for row in 0..<stored.rows {
                let input = stored.source.baseAddress! + row * stored.sourceRowPixels * 3
                let output = destination + row * destinationRowPixels * 3
                output.update(from: input.assumingMemoryBound(to: UInt8.self), count: columns * 3)
                for column in 0..<columns {
                    output[column * 3 + 1] ^= flip
                    output[column * 3 + 2] ^= flip
                }
                transform.apply(output, pixelCount: columns)
            }
            return
        }
        let flip: UInt16 = signed ? 0x8000 : 0
        var lab = [UInt16](repeating: 0, count: columns * 3)
        lab.withUnsafeMutableBufferPointer { lab in
            for row in 0..<stored.rows {
                let input = row * stored.sourceRowPixels * 6
                for index in 0..<(columns * 3) {
                    let value = stored.source.loadUnaligned(fromByteOffset: input + index * 2, as: UInt16.self)
                    // L is the same in both; a and b move from 1/256 a unit about 0x8000 to 1/257 about 0x8080.
                    lab[index] = index % 3 == 0 ? value : UInt16(min(65535, (Int(value ^ flip) * 257 + 128) >> 8))
                }
                transform.apply(from: lab.baseAddress!, to: destination + row * destinationRowPixels * 3, pixelCount: columns)
            }
        }
    }

    /// 32-bit integer samples (in the machine's byte order, as libtiff hands them over) reduced to
    /// the high byte of their range, as 16-bit samples are to theirs: unsigned ones of 0…2³² − 1,
    /// signed ones of 0…2³¹ − 1 (negative values are black).
    func copyInteger32Pixels(
        _ stored: StoredRows, signed: Bool, to destination: UnsafeMutablePointer<UInt8>, rowPixels destinationRowPixels: Int
    ) {
        let channels = decodedFormat.bytesPerPixel
        let pixelBytes = samplesPerPixel * 4
        for row in 0..<stored.rows {
            let sourceRow = row * stored.sourceRowPixels * pixelBytes
            let output = destination + row * destinationRowPixels * channels
            for column in 0..<stored.columns {
                for channel in 0..<channels {
                    let value = stored.source.loadUnaligned(fromByteOffset: sourceRow + column * pixelBytes + channel * 4, as: UInt32.self)
                    output[column * channels + channel] =
                        signed ? UInt8(max(0, Int32(bitPattern: value)) >> 23) : UInt8(value >> 24)
                }
            }
        }
    }
}
