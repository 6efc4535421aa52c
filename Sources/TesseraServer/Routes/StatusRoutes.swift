import HTTPTypes
import Hummingbird
import TesseraCore

/// `/health` (JSON: status, version, uptime in seconds) and `/metrics` (Prometheus text).
struct StatusRoutes {
    let service: ImageService
    let started: ContinuousClock.Instant

    func add<Context: RequestContext>(to routes: LabelledRoutes<Context>) {
        routes("health") {
            $0.get("health") { _, _ in
                let uptime = (ContinuousClock.now - started).components.seconds
                let json = "{\"status\":\"ok\",\"version\":\"\(tesseraVersion)\",\"uptime\":\(uptime)}\n"
                return Response(
                    status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                    body: ResponseBody(byteBuffer: ByteBuffer(string: json)))
            }
        }
        routes("metrics") {
            $0.get("metrics") { _, _ in
                let text = service.metrics.exposition(queuedJobs: service.queuedJobs)
                return Response(
                    status: .ok, headers: [.contentType: "text/plain; version=0.0.4", .cacheControl: "no-store"],
                    body: ResponseBody(byteBuffer: ByteBuffer(bytes: text)))
            }
        }
    }
}
