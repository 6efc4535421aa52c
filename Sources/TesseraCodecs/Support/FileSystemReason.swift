import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The C library's words for a file-system error thrown by Foundation or a system call ("No such
/// file or directory"): what `localizedDescription` gave before, without full Foundation.
public func fileSystemReason(_ error: any Error) -> String {
    if let posix = error as? POSIXError { return String(cString: strerror(posix.code.rawValue)) }
    guard let cocoa = error as? CocoaError else { return String(describing: error) }
    if let posix = cocoa.userInfo["NSUnderlyingError"] as? POSIXError {
        return String(cString: strerror(posix.code.rawValue))
    }
    let code: Int32? =
        switch cocoa.code {
        case .fileNoSuchFile, .fileReadNoSuchFile: ENOENT
        case .fileReadNoPermission, .fileWriteNoPermission: EACCES
        case .fileWriteOutOfSpace: ENOSPC
        case .fileWriteFileExists: EEXIST
        case .fileWriteVolumeReadOnly: EROFS
        case .fileReadTooLarge: EFBIG
        default: nil
        }
    return code.map { String(cString: strerror($0)) } ?? "file system error \(cocoa.code.rawValue)"
}
