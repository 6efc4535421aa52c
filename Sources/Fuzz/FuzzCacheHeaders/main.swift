import FoundationEssentials
import FuzzSupport

@testable import TesseraPipeline

// The caching headers of an HTTP response, as the pipeline reads and keeps them: the input is up to
// three lines, the values of `Cache-Control`, `ETag` and `Last-Modified`. What `Cache-Control` says is
// stored in the disk cache with the validators, the entry is refreshed as after a 304, and the cache
// is reopened as after a restart. Whatever the headers say, a response the pipeline stores must then
// be found again with its validators, fresh exactly when max-age is above 0 (or absent).
let scratch = ScratchDirectory()
let directory = URL(fileURLWithPath: scratch.path).appendingPathComponent("cache")
// A fixed clock: freshness is then a function of the headers alone.
let moment = Date(timeIntervalSince1970: 1_800_000_000)

/// What became of the stored response after the restart.
enum Outcome: Sendable {
    /// libcrypto is missing, so the cache keeps nothing by design: no property to check.
    case cacheUnavailable
    case lost
    case found(validators: HTTPValidators, isFresh: Bool)
}

fuzzMain { data in
    let lines = String(decoding: data, as: UTF8.self)
        .split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
    let control = FetchedData.cacheControl(lines.first)
    let validators = HTTPValidators(etag: lines.count > 1 ? lines[1] : nil, lastModified: lines.count > 2 ? lines[2] : nil)
    // The pipeline keeps a no-store response off the disk (ImagePipeline's load).
    guard !control.noStore else { return .tried }
    let outcome = blockingAwait { () async -> Outcome in
        let cache = DiskCache(directory: directory, now: { moment })
        guard cache.unavailableReason == nil else { return .cacheUnavailable }
        await cache.store(Data("body".utf8), for: "key", validators: validators, maxAge: control.maxAge)
        await cache.refresh("key", validators: validators, maxAge: control.maxAge)
        await cache.flush()
        let reopened = DiskCache(directory: directory, now: { moment })
        let entry = await reopened.lookup("key")
        await reopened.removeAll()
        await reopened.flush()
        return entry.map { .found(validators: $0.validators, isFresh: $0.isFresh) } ?? .lost
    }
    let header = String(reflecting: lines.first ?? ""), maxAge = String(describing: control.maxAge)
    switch outcome {
    case .cacheUnavailable:
        break
    case .lost:
        fatalError("the disk cache lost a response with Cache-Control \(header) (max-age \(maxAge))")
    case .found(let kept, let isFresh):
        precondition(kept == validators, "the disk cache changed the validators \(validators) into \(kept)")
        let expectedFresh = control.maxAge.map { $0 > 0 } ?? true
        precondition(isFresh == expectedFresh, "Cache-Control \(header) gave max-age \(maxAge), but the entry's freshness is \(isFresh)")
    }
    return .tried
}
