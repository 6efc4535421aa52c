public import TesseraCore

/// A step applied to a decoded image. The identifier names the step and its parameters: it is part
/// of the cache key, so two processors with equal identifiers must produce equal results.
public protocol ImageProcessing: Sendable {
    /// Names the step and its parameters (`resize(300x300,fill)`), for the cache key.
    var identifier: String { get }
    /// The processed image. Runs on the pipeline's executor; an error fails the request, wrapped in
    /// ``ImagePipelineError/processingFailed(_:)`` unless it is an ``ImagePipelineError`` already.
    func process(_ image: PixelBuffer) throws -> PixelBuffer
}

/// Resizes into a box of pixels by a content mode (Lanczos-3, alpha premultiplied), enlarging when
/// the image is smaller: fit inside it, fill it, or fill it and cut the overflow away, centred.
public struct ResizeProcessor: ImageProcessing {
    /// The box, in pixels.
    public var size: PixelSize
    /// How the image is placed in the box.
    public var mode: ContentMode

    /// Resizes into `size` pixels by `mode`: aspect-fit by default.
    public init(size: PixelSize, mode: ContentMode = .fit) {
        self.size = size
        self.mode = mode
    }

    /// `resize(WxH,mode)`.
    public var identifier: String { "resize(\(size.width)x\(size.height),\(mode.rawValue))" }

    /// The image resized into ``size`` by ``mode``; never throws.
    public func process(_ image: PixelBuffer) throws -> PixelBuffer {
        let resized = LanczosResampler.resize(image, to: image.size.scaled(toward: size, mode: mode))
        return mode == .centerCrop ? resized.centerCropped(to: size) : resized
    }
}

/// Cuts out a rectangle, in pixels of the image it receives.
public struct CropProcessor: ImageProcessing {
    /// The rectangle to keep, in pixels: origin from the top-left, then size.
    public var x: Int, y: Int, width: Int, height: Int

    /// Keeps the `width` × `height` pixels at (`x`, `y`).
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// `crop(x,y,width,height)`.
    public var identifier: String { "crop(\(x),\(y),\(width),\(height))" }

    /// The pixels of the rectangle.
    /// - Throws: ``ImagePipelineError/processingFailed(_:)`` when it does not lie inside the image.
    public func process(_ image: PixelBuffer) throws -> PixelBuffer {
        guard let cropped = image.cropped(x: x, y: y, width: width, height: height) else {
            throw ImagePipelineError.processingFailed("crop \(x),\(y),\(width)×\(height) is outside \(image.size)")
        }
        return cropped
    }
}

/// A Gaussian blur of standard deviation `radius` pixels, approximated by three box blurs per axis
/// (within a few percent of the true Gaussian); edges clamp.
public struct GaussianBlurProcessor: ImageProcessing {
    /// The standard deviation, in pixels; 0 or less leaves the image as it is.
    public var radius: Double

    /// A blur of standard deviation `radius` pixels.
    public init(radius: Double) { self.radius = radius }

    /// `gaussianBlur(radius)`.
    public var identifier: String { "gaussianBlur(\(radius))" }

    /// The blurred image, same size and format; never throws.
    public func process(_ image: PixelBuffer) throws -> PixelBuffer {
        guard radius > 0 else { return image }
        // Box widths whose three-fold convolution has variance radius² (Kovesi's construction).
        let ideal = (12 * radius * radius / 3 + 1).squareRoot()
        var lower = Int(ideal.rounded(.down))
        if lower % 2 == 0 { lower -= 1 }
        let upper = lower + 2
        let lowerCount = Int(
            ((12 * radius * radius - 3 * Double(lower * lower) - 12 * Double(lower) - 9)
                / (-4 * Double(lower) - 4)).rounded())
        var output = image
        for pass in 0..<3 {
            let half = ((pass < lowerCount ? lower : upper) - 1) / 2
            output = Self.boxBlur(output, half: half, horizontal: true)
            output = Self.boxBlur(output, half: half, horizontal: false)
        }
        return output
    }

    private static func boxBlur(_ image: PixelBuffer, half: Int, horizontal: Bool) -> PixelBuffer {
        guard half > 0 else { return image }
        let channels = image.format.bytesPerPixel
        let lines = horizontal ? image.height : image.width
        let length = horizontal ? image.width : image.height
        let step = horizontal ? channels : image.bytesPerRow
        let lineStep = horizontal ? image.bytesPerRow : channels
        var output = image
        let window = 2 * half + 1
        image.bytes.withUnsafeBufferPointer { source in
            output.bytes.withUnsafeMutableBufferPointer { destination in
                for line in 0..<lines {
                    let base = line * lineStep
                    for channel in 0..<channels {
                        func sample(_ index: Int) -> Int { Int(source[base + min(max(index, 0), length - 1) * step + channel]) }
                        var sum = 0
                        for index in -half...half { sum += sample(index) }
                        for index in 0..<length {
                            destination[base + index * step + channel] = UInt8((sum + window / 2) / window)
                            sum += sample(index + half + 1) - sample(index - half)
                        }
                    }
                }
            }
        }
        return output
    }
}
