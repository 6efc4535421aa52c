import FoundationEssentials
import TesseraCore
import TesseraIIIF
import TesseraVideo

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Clip exports the trimmer asks for (`POST /video/{id}/trim`), run in the background and polled
/// (`GET /jobs/{id}`), their results kept for a while for download.
///
/// Bounded: at most ``activeLimit`` jobs queued or running (more get 503), at most ``retainedLimit``
/// kept in all (the oldest finished ones go first), and a finished job expires after
/// ``lifetime`` with its file. Ids are 128 random bits: a result can be fetched only by whoever
/// started it (or was given its URL). Results live in a directory of their own, emptied at start-up.
final class TrimJobs: Sendable {
    /// A job's state as `GET /jobs/{id}` reports it; keys whose value is nil are left out.
    struct Status: Encodable, Sendable {
        enum State: String, Encodable, Sendable {
            case queued, running, done, failed
        }

        var id: String
        var state: State
        /// 0…1.
        var progress: Double
        var error: String?
        var result: TrimResult?
        /// Where the clip is, once done.
        var download: String?
    }

    /// A finished clip ready to send.
    struct Clip: Sendable {
        var path: String
        /// The name the download suggests.
        var fileName: String
        var mediaType: String
    }

    private struct Job {
        /// The video's identifier (decoded), for access control's questions.
        var identifier: String
        var source: String
        var output: String
        var fileName: String
        var progress: WorkProgress
        var started: ContinuousClock.Instant
        var finished: ContinuousClock.Instant?
        var result: TrimResult?
        var error: String?
        /// Set when the exporter first reports progress, that is, when it has left the queue.
        var isRunning = false
    }

    let directory: String
    let executor: WorkExecutor
    let activeLimit: Int
    let retainedLimit: Int
    let lifetime: Duration
    /// Directories a failed job's error text must not name (the output is in the cache).
    let privatePaths: PrivatePaths
    private let jobs = Locked<[String: Job]>([:])

    /// - Throws: a file-system error when `directory` cannot be made.
    init(
        directory: String, executor: WorkExecutor, activeLimit: Int = 4, retainedLimit: Int = 64, lifetime: Duration = .seconds(900),
        privatePaths: PrivatePaths = PrivatePaths([])
    ) throws {
        self.directory = directory
        self.privatePaths = privatePaths
        self.executor = executor
        self.activeLimit = activeLimit
        self.retainedLimit = retainedLimit
        self.lifetime = lifetime
        // Results of a previous run are unreachable (their ids are gone): remove them.
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    /// Starts exporting `from..<to` seconds of `source` and returns the job's id.
    /// - Throws: ``ServerError``: bad input for a range that is not inside the video, busy when
    ///   ``activeLimit`` jobs are already under way.
    func start(_ source: ResolvedSource, asset: VideoAsset, from: Double, to: Double, exact: Bool) throws(ServerError) -> String {
        guard from.isFinite, to.isFinite, from >= 0, to > from, to <= asset.duration + MediaTime.tolerance else {
            throw ServerError(.badInput, "from and to must satisfy 0 ≤ from < to ≤ \(asset.duration)")
        }
        let id = Self.randomID()
        let name = String(source.relativePath.split(separator: "/").last ?? "clip")
        let stem = name.split(separator: ".").dropLast().joined(separator: ".")
        let fileExtension = exact ? "mp4" : Self.copyExtension(for: name)
        let fileName = (stem.isEmpty ? name : stem) + "-trim." + fileExtension
        let progress = WorkProgress { [weak self] _ in self?.jobs.withLock { $0[id]?.isRunning = true } }
        let job = Job(
            identifier: source.relativePath, source: try VideoService.filePath(of: source), output: directory + "/" + id + "." + fileExtension,
            fileName: fileName,
            progress: progress, started: .now)
        try jobs.withLock { jobs throws(ServerError) in
            sweep(&jobs)
            guard jobs.values.count(where: { $0.finished == nil }) < activeLimit else {
                throw ServerError(.busy, "\(activeLimit) exports are under way; try again later")
            }
            // Make room: the oldest finished jobs go first.
            while jobs.count >= retainedLimit, let oldest = jobs.filter({ $0.value.finished != nil }).min(by: { $0.value.started < $1.value.started })
            {
                unlink(oldest.value.output)
                jobs[oldest.key] = nil
            }
            jobs[id] = job
        }
        let method: ClipExporter.Method = exact ? .exact() : .streamCopy
        let executor = self.executor
        Task {
            do {
                let result = try await ClipExporter.trim(
                    path: job.source, from: from, to: to, output: job.output, method: method,
                    progress: job.progress, priority: .low, executor: executor)
                self.finish(id, result: result, error: nil)
            } catch {
                self.finish(id, result: nil, error: self.privatePaths.scrub(oneLine(String(describing: error))))
            }
        }
        return id
    }

    /// The identifier of the video job `id` exports from, or nil when there is no such job.
    func identifier(of id: String) -> String? {
        jobs.withLock { $0[id]?.identifier }
    }

    /// The job's status, or nil when there is no such job (never was, or expired).
    func status(_ id: String) -> Status? {
        jobs.withLock { jobs in
            sweep(&jobs)
            guard let job = jobs[id] else { return nil }
            let state: Status.State =
                job.result != nil ? .done : job.error != nil ? .failed : job.isRunning ? .running : .queued
            return Status(
                id: id, state: state, progress: state == .done ? 1 : job.progress.fraction, error: job.error,
                result: job.result, download: state == .done ? "/jobs/\(id)/result" : nil)
        }
    }

    /// The finished clip of job `id`, or why there is none.
    func clip(_ id: String) -> Result<Clip, ClipUnavailable> {
        jobs.withLock { jobs in
            sweep(&jobs)
            guard let job = jobs[id] else { return .failure(.unknown) }
            guard job.result != nil else { return .failure(job.error == nil ? .unfinished : .failed) }
            return .success(Clip(path: job.output, fileName: job.fileName, mediaType: VideoService.mediaType(of: job.output)))
        }
    }

    enum ClipUnavailable: Error {
        case unknown, unfinished, failed
    }

    private func finish(_ id: String, result: TrimResult?, error: String?) {
        jobs.withLock { jobs in
            jobs[id]?.result = result
            jobs[id]?.error = error
            jobs[id]?.finished = .now
        }
    }

    /// Drops jobs finished more than ``lifetime`` ago, with their files.
    private func sweep(_ jobs: inout [String: Job]) {
        let now = ContinuousClock.now
        for (id, job) in jobs {
            if let finished = job.finished, now - finished > lifetime {
                unlink(job.output)
                jobs[id] = nil
            }
        }
    }

    /// Whether `id` could be a job id (32 lower-case hex digits), checked before any lookup.
    static func isValidID(_ id: String) -> Bool {
        id.utf8.count == 32
            && id.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
    }

    private static func randomID() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let hex = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }

    /// A stream copy keeps the source's container when it is one the exporter writes, else Matroska
    /// (which holds any codec).
    private static func copyExtension(for name: String) -> String {
        let fileExtension = name.split(separator: ".").last.map { $0.lowercased() } ?? ""
        return ["mp4", "mov", "mkv", "webm", "ts"].contains(fileExtension) ? fileExtension : "mkv"
    }
}
