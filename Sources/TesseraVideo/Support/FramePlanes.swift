import CTesseraAV

extension UnsafeMutablePointer where Pointee == AVFrame {
    /// The frame's plane pointers and row strides as the C arrays swscale takes; Swift sees
    /// `AVFrame.data` and `linesize` as tuples, which have no such view of their own.
    func withPlanes<Result>(
        _ body: (_ planes: UnsafePointer<UnsafeMutablePointer<UInt8>?>, _ strides: UnsafePointer<Int32>) -> Result
    ) -> Result {
        withUnsafeMutablePointer(to: &pointee.data) { data in
            withUnsafeMutablePointer(to: &pointee.linesize) { linesize in
                data.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { planes in
                    linesize.withMemoryRebound(to: Int32.self, capacity: 8) { strides in body(planes, strides) }
                }
            }
        }
    }
}

/// swscale reads its source through pointers to const; the planes are the same memory.
func readOnly(_ planes: UnsafePointer<UnsafeMutablePointer<UInt8>?>) -> UnsafePointer<UnsafePointer<UInt8>?> {
    UnsafeRawPointer(planes).assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
}
