import Foundation
import TesseraCore
import TesseraTiles
import Testing

@testable import TesseraServer

/// Levels readable while they are made: regions answered from the rows written so far, one run
/// for every request, and a run stopped only when the last request still waiting goes.
@Suite("Levels read while they are made", .timeLimit(.minutes(10)))
struct LevelFlightsTests {
    static let size = PixelSize(width: 64, height: 64)

    /// A level whose row `y` is all `y`, made on a thread of its own: the top half written and
    /// reported, then (once `gate` opens) the rest. Throws `CancellationError` after the gate if
    /// its task was cancelled meanwhile.
    final class Run: @unchecked Sendable {
        let gate = DispatchSemaphore(value: 0)
        let started = Locked(0)

        func make(_ writer: LevelFlights.Writer) async throws -> PixelBuffer {
            started.withLock { $0 += 1 }
            let cancelled = Locked(false)
            let result: Result<PixelBuffer, any Error> = await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    Thread.detachNewThread {
                        continuation.resume(
                            returning: Result {
                                try PixelBuffer(width: size.width, height: size.height, format: .gray8) { target in
                                    let base = UnsafeRawPointer(target.baseAddress!)
                                    for y in 0..<size.height {
                                        if y == size.height / 2 {
                                            writer.report(.rows(base, format: .gray8, written: y))
                                            self.gate.wait()
                                        }
                                        (target.baseAddress! + y * size.width).update(repeating: UInt8(y), count: size.width)
                                    }
                                    if cancelled.withLock({ $0 }) {
                                        writer.report(.failed)
                                        throw CancellationError()
                                    }
                                    writer.report(.rows(base, format: .gray8, written: size.height))
                                }
                            })
                    }
                }
            } onCancel: {
                cancelled.withLock { $0 = true }
            }
            return try result.get()
        }
    }

    static func rows(of pixels: PixelBuffer) -> [UInt8] { (0..<pixels.height).map { pixels.pixel(x: 0, y: $0).first! } }

    @Test func aRegionIsAnsweredOnceItsRowsAreWrittenAndEveryRequestSharesOneRun() async throws {
        let flights = LevelFlights()
        let run = Run()
        let make: @Sendable (LevelFlights.Writer) async throws -> PixelBuffer = { try await run.make($0) }
        // The top half comes while the run waits at its gate.
        let top = try await flights.region(PixelRect(x: 8, y: 4, width: 16, height: 20), of: "level", size: Self.size, make: make)
        #expect(top.size == PixelSize(width: 16, height: 20))
        #expect(Self.rows(of: top) == (4..<24).map { UInt8($0) })
        // A region below waits; a second request joins the same run.
        async let bottom = flights.region(PixelRect(x: 0, y: 40, width: 64, height: 24), of: "level", size: Self.size, make: make)
        try await poll { flights.waitingCount == 1 }
        #expect(flights.waitingCount == 1)
        run.gate.signal()
        #expect(try await Self.rows(of: bottom) == (40..<64).map { UInt8($0) })
        #expect(run.started.withLock { $0 } == 1)
    }

    @Test func theLastRequestToGoStopsTheRunAndTheNextStartsAfresh() async throws {
        let abandoned = Locked(0)
        let flights = LevelFlights { abandoned.withLock { $0 += 1 } }
        let run = Run()
        let make: @Sendable (LevelFlights.Writer) async throws -> PixelBuffer = { try await run.make($0) }
        // A request that got its rows and left does not stop the run.
        _ = try await flights.region(PixelRect(x: 0, y: 0, width: 64, height: 8), of: "level", size: Self.size, make: make)
        let waiting = Task { try await flights.region(PixelRect(x: 0, y: 48, width: 64, height: 8), of: "level", size: Self.size, make: make) }
        try await poll { flights.waitingCount == 1 }
        #expect(flights.waitingCount == 1)
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        // The run ends by its cancellation once it passes its gate.
        run.gate.signal()
        try await poll { flights.stoppingCount == 0 && abandoned.withLock { $0 } == 1 }
        #expect(abandoned.withLock { $0 } == 1)
        // The next request starts a run of its own.
        let next = Run()
        next.gate.signal()
        let whole = try await flights.region(nil, of: "level", size: Self.size) { try await next.make($0) }
        #expect(Self.rows(of: whole) == (0..<64).map { UInt8($0) })
        #expect(run.started.withLock { $0 } == 1)
        #expect(next.started.withLock { $0 } == 1)
    }

    @Test func aRunThatFailsFailsEveryRequestWaiting() async throws {
        struct Broken: Error {}
        let flights = LevelFlights()
        await #expect(throws: Broken.self) {
            try await flights.region(PixelRect(x: 0, y: 0, width: 4, height: 4), of: "level", size: Self.size) { writer in
                throw Broken()
            }
        }
        #expect(flights.waitingCount == 0)
    }
}
