import CFuzzerDriver
import Dispatch
public import FoundationEssentials
import TesseraCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a harness made of one input.
public enum FuzzVerdict: Sendable {
    /// Run: libFuzzer keeps it in the corpus when it reached new code.
    case tried
    /// Not this harness's kind of input (another format): kept out of the corpus, so a
    /// per-format harness does not fill its corpus with inputs it never looks into.
    case rejected
}

/// The running harness. Set once before libFuzzer starts and only read after, from the one thread
/// libFuzzer runs inputs on; a C callback cannot capture it, hence the global.
nonisolated(unsafe) private var harnessBody: ((Data) -> FuzzVerdict)?

/// Runs libFuzzer over `body` with the process's arguments (every libFuzzer flag works) and exits
/// with libFuzzer's status. Each harness's main.swift is one call of this.
public func fuzzMain(_ body: @escaping (Data) -> FuzzVerdict) -> Never {
    harnessBody = body
    let status = tessera_fuzz_run(CommandLine.argc, CommandLine.unsafeArgv) { bytes, count in
        let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
        return harnessBody?(data) == .rejected ? -1 : 0
    }
    exit(status)
}

/// The result of `operation`, waited for on the calling thread.
///
/// libFuzzer calls a harness synchronously; the asynchronous APIs under test (video probing, strips,
/// the disk cache, the viewer engine) run on Swift's and Tessera's own executors, never on this
/// thread, so blocking it cannot deadlock them.
public func blockingAwait<T: Sendable>(_ operation: @escaping @Sendable () async -> T) -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        let result = await operation()
        box.value.withLock { $0 = result }
        done.signal()
    }
    done.wait()
    guard let result = box.value.withLock({ $0 }) else { preconditionFailure("the operation finished without a result") }
    return result
}

private final class ResultBox<T: Sendable>: Sendable {
    let value = Locked<T?>(nil)
}

/// A directory of the harness's own for the APIs that read files (videos, TIFF pyramids, cached
/// responses). Made under `TMPDIR`, which scripts/fuzz.py points into the build directory and
/// removes afterwards, since a crash skips the removal at exit.
public final class ScratchDirectory: Sendable {
    public let path: String

    public init() {
        let base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((base + "/tessera-fuzz-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { fatalError("cannot make a scratch directory under \(base)") }
        path = String(cString: made)
        scratchDirectories.withLock { $0.append(path) }
        _ = registerRemovalAtExit
    }

    /// Writes `data` to `name` in the directory and returns the file's path.
    public func write(_ data: Data, to name: String) -> String {
        let file = path + "/" + name
        do {
            try data.write(to: URL(fileURLWithPath: file))
        } catch {
            fatalError("cannot write the fuzz input to \(file): \(error)")
        }
        return file
    }
}

private let scratchDirectories = Locked<[String]>([])

/// Removes every scratch directory when libFuzzer exits normally (after `-runs` or
/// `-max_total_time`); lazily registered, once.
private let registerRemovalAtExit: Void = {
    atexit {
        for path in scratchDirectories.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
    }
}()
