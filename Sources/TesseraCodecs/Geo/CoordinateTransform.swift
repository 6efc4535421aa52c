import CTesseraPROJ
import TesseraCore

/// A transformation between two coordinate reference systems named by EPSG codes, through PROJ
/// (loaded on first use), with x/y axis order whatever the systems' own (longitude before
/// latitude). One PROJ object is used by one thread at a time: calls are serialised, and each
/// converts a whole grid of points, so a map tile takes the lock once.
public final class CoordinateTransform: Sendable {
    /// The PROJ context and transformation, touched only under the lock.
    private final class Handle: @unchecked Sendable {
        let library: TesseraPROJ
        let context: OpaquePointer
        let transformation: OpaquePointer
        init(library: TesseraPROJ, context: OpaquePointer, transformation: OpaquePointer) {
            (self.library, self.context, self.transformation) = (library, context, transformation)
        }
        deinit {
            _ = library.proj_destroy(transformation)
            _ = library.proj_context_destroy(context)
        }
    }

    private let handle: Locked<Handle>
    /// The systems transformed from and to.
    public let source: Int, target: Int

    /// The transformation from EPSG:`source` to EPSG:`target`.
    ///
    /// - Throws: `ImageDecodingError.libraryUnavailable` without PROJ; `.unsupported` for a code
    ///   PROJ does not know or a pair it cannot transform between.
    public init(from source: Int, to target: Int) throws(ImageDecodingError) {
        let library = try Libraries.proj.get()
        guard let context = library.proj_context_create() else { throw .libraryUnavailable(reason: "PROJ made no context") }
        // Never the network (its grids), and no message on stderr: failures are thrown.
        _ = library.proj_context_set_enable_network(context, 0)
        _ = library.proj_log_level(context, PJ_LOG_NONE)
        guard let raw = library.proj_create_crs_to_crs(context, "EPSG:\(source)", "EPSG:\(target)", nil) else {
            let reason = Self.reason(library, context)
            _ = library.proj_context_destroy(context)
            throw .unsupported(reason: "no transformation from EPSG:\(source) to EPSG:\(target) (\(reason))")
        }
        let normalized = library.proj_normalize_for_visualization(context, raw)
        _ = library.proj_destroy(raw)
        guard let normalized else {
            _ = library.proj_context_destroy(context)
            throw .unsupported(reason: "no transformation from EPSG:\(source) to EPSG:\(target)")
        }
        handle = Locked(Handle(library: library, context: context, transformation: normalized))
        (self.source, self.target) = (source, target)
    }

    private static func reason(_ library: TesseraPROJ, _ context: OpaquePointer) -> String {
        library.proj_context_errno_string(context, library.proj_context_errno(context)).map { String(cString: $0) } ?? "unknown"
    }

    /// `xs` and `ys` transformed in place; a point that cannot be (outside the projection's
    /// domain) becomes infinity.
    public func transform(xs: inout [Double], ys: inout [Double]) {
        precondition(xs.count == ys.count)
        let count = xs.count
        handle.withLock { handle in
            let library = handle.library
            _ = library.proj_errno_reset(handle.transformation)
            xs.withUnsafeMutableBufferPointer { x in
                ys.withUnsafeMutableBufferPointer { y in
                    _ = library.proj_trans_generic(
                        handle.transformation, PJ_FWD, x.baseAddress, MemoryLayout<Double>.stride, count, y.baseAddress,
                        MemoryLayout<Double>.stride, count, nil, 0, 0, nil, 0, 0)
                }
            }
        }
    }

    /// The bounding box in the target system of the box (`minX`, `minY`)–(`maxX`, `maxY`) of the
    /// source, its edges followed (21 points each) so a curved edge's extreme is kept; nil when
    /// PROJ cannot (a box outside the projection's domain).
    public func bounds(minX: Double, minY: Double, maxX: Double, maxY: Double) -> (minX: Double, minY: Double, maxX: Double, maxY: Double)? {
        handle.withLock { handle in
            var out = (0.0, 0.0, 0.0, 0.0)
            let ok = handle.library.proj_trans_bounds(
                handle.context, handle.transformation, PJ_FWD, minX, minY, maxX, maxY, &out.0, &out.1, &out.2, &out.3, 21)
            return ok != 0 && [out.0, out.1, out.2, out.3].allSatisfy(\.isFinite) ? out : nil
        }
    }

    /// Transformations made so far, by (source, target): each costs a read of PROJ's database.
    private static let made = Locked([Int: CoordinateTransform]())

    /// The transformation from EPSG:`source` to EPSG:`target`, made once per process.
    public static func shared(from source: Int, to target: Int) throws(ImageDecodingError) -> CoordinateTransform {
        let key = source &* 1_000_003 &+ target
        if let known = made.withLock({ $0[key] }) { return known }
        let transform = try CoordinateTransform(from: source, to: target)
        return made.withLock { made in
            if let known = made[key] { return known }
            // A bound on what a stream of files with invented codes could keep.
            if made.count >= 256 { made.removeAll() }
            made[key] = transform
            return transform
        }
    }
}
