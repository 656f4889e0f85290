import Foundation
import Logging
import OTel
import ServiceLifecycle

/// `kf serve`'s traces: OpenTelemetry through swift-otel, bootstrapped only when the standard `OTEL_*` variables ask
/// for traces (an OTLP endpoint, or `OTEL_TRACES_EXPORTER` other than `none`), and never with `OTEL_SDK_DISABLED`.
/// Only traces: metrics stay Prometheus' (`/metrics`) and logs stderr's. Everything else (endpoint, protocol,
/// headers, sampler, batching, service name, propagators) is swift-otel's reading of the same variables. The
/// returned service runs beside the server and exports what is left when the server stops.
enum ServeTracing {
    /// Whether `environment` asks for traces.
    static func isRequested(by environment: [String: String]) -> Bool {
        func value(_ name: String) -> String? {
            guard let value = environment[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty else {
                return nil
            }
            return value.lowercased()
        }
        if value("OTEL_SDK_DISABLED") == "true" { return false }
        if let exporter = value("OTEL_TRACES_EXPORTER") { return exporter != "none" }
        return value("OTEL_EXPORTER_OTLP_ENDPOINT") != nil || value("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != nil
    }

    /// The exporting service when traces are asked for; `nil` (and nothing bootstrapped) otherwise.
    static func bootstrap(environment: [String: String], logger: Logger) throws -> (any Service)? {
        guard isRequested(by: environment) else { return nil }
        var configuration = OTel.Configuration.default
        configuration.serviceName = "kf-serve"
        configuration.logs.enabled = false
        configuration.metrics.enabled = false
        configuration.traces.enabled = true
        configuration.diagnosticLogger = .custom(logger)
        return try OTel.bootstrap(configuration: configuration, environment: environment)
    }
}
