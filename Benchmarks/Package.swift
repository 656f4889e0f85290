// swift-tools-version:6.1
// Benchmarks for Kingfisher, on ordo-one/package-benchmark. Run from this folder:
//   swift package benchmark                       # every target
//   swift package benchmark --target ImageDecoding
// The latest figures and their commands go in ../BENCHMARKS.md; every run, dated, in ../docs/benchmarks-history.md.
import Foundation
import PackageDescription

// The root package is referenced by path; its identity is the name of the folder it was cloned into.
let rootPackage = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

func benchmarkTarget(_ name: String) -> Target {
    .executableTarget(
        name: name,
        dependencies: [
            .product(name: "Benchmark", package: "package-benchmark"),
            .product(name: "Kingfisher", package: rootPackage),
            .product(name: "KingfisherTestSupport", package: rootPackage),
        ],
        path: "Benchmarks/\(name)",
        plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
    )
}

let package = Package(
    name: "KingfisherBenchmarks",
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/ordo-one/package-benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        benchmarkTarget("ImageDecoding"),
        benchmarkTarget("Downloading"),
        benchmarkTarget("Caching"),
        benchmarkTarget("Manager"),
        // A plain timer for the side-by-side scripts, which compare against other tools' processes.
        .executableTarget(
            name: "DownsampleTimer",
            dependencies: [.product(name: "Kingfisher", package: rootPackage)],
            path: "Sources/DownsampleTimer"
        ),
        // Revalidating a warm cache inside one process (revalidate-vs-curl.sh).
        .executableTarget(
            name: "RevalidateTimer",
            dependencies: [.product(name: "Kingfisher", package: rootPackage)],
            path: "Sources/RevalidateTimer"
        ),
        // Per-stage times of thumbnail jobs on one core (decode + downsample, encode).
        .executableTarget(
            name: "StageTimer",
            dependencies: [.product(name: "Kingfisher", package: rootPackage)],
            path: "Sources/StageTimer"
        ),
        // The Kingfisher side of prefetch-vs-aiohttp.sh.
        .executableTarget(
            name: "PrefetchTimer",
            dependencies: [.product(name: "Kingfisher", package: rootPackage)],
            path: "Sources/PrefetchTimer"
        ),
        // Time to the final image with and without progressive JPEG previews (progressive-previews.sh).
        .executableTarget(
            name: "ProgressiveTimer",
            dependencies: [
                .product(name: "Kingfisher", package: rootPackage),
                .product(name: "KingfisherTestSupport", package: rootPackage),
            ],
            path: "Sources/ProgressiveTimer"
        ),
        // A burst of concurrent retrievals of distinct photos (burst.sh).
        .executableTarget(
            name: "BurstTimer",
            dependencies: [.product(name: "Kingfisher", package: rootPackage)],
            path: "Sources/BurstTimer"
        ),
        // Server and client for download-vs-curl.sh.
        .executableTarget(
            name: "DownloadVsCurl",
            dependencies: [
                .product(name: "Kingfisher", package: rootPackage),
                .product(name: "KingfisherTestSupport", package: rootPackage),
            ],
            path: "Sources/DownloadVsCurl"
        ),
    ]
)
