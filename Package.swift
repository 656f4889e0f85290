// swift-tools-version:6.1
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

// SwiftPM reads the pkg-config file of every system library target in the graph, used or not, and reports each flag
// it refuses ("warning: prohibited flag(s)") to every package that depends on this one: gtk4's closure carries
// graphene's -mfpmath=sse -msse -msse2 and GLib's -pthread. On Linux CGtk names a file of its own by path, gtk4's
// include directories and libraries without those flags. (glib-2.0 and chafa, for CVips and CChafa, carry none.)
#if os(Linux)
let gtkPkgConfig = Context.packageDirectory + "/Sources/CGtk/CGtk.pc"
#else
let gtkPkgConfig = "gtk4"
#endif

let package = Package(
    name: "Kingfisher",
    products: [
        .library(name: "Kingfisher", targets: ["Kingfisher"]),
        .library(name: "KingfisherTerminal", targets: ["KingfisherTerminal"]),
        .library(name: "KingfisherTestSupport", targets: ["KingfisherTestSupport"]),
        .library(name: "KingfisherServer", targets: ["KingfisherServer"]),
        .library(name: "KingfisherGTK", targets: ["KingfisherGTK"]),
        .executable(name: "kf", targets: ["kf"]),
        .executable(name: "kf-gallery", targets: ["KfGallery"]),
        .executable(name: "kf-view", targets: ["KfView"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        // Spans the library names; the application picks the tracer (kf serve: swift-otel, when OTEL_* asks).
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.30.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // The image server: Hummingbird without its swift-configuration trait (flags and KF_SERVE_* are read by kf).
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: ["FullFoundation"]),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // kf serve's OpenTelemetry exporter: OTLP over HTTP only (no gRPC stack to build).
        .package(url: "https://github.com/swift-otel/swift-otel", from: "1.6.0", traits: ["OTLPHTTP"]),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    ],
    targets: [
        // libvips' headers, plus a header of non-variadic `cvips_*` wrappers that load libvips on first use
        // (Sources/CVips/CVipsSymbols.h): nothing links it, so a program starts without its ~100 libraries.
        // pkg-config's glib-2.0 gives the include paths libvips' headers need (and links GLib alone).
        .systemLibrary(
            name: "CVips",
            pkgConfig: "glib-2.0",
            providers: [.apt(["libvips-dev"]), .brew(["vips"])]
        ),
        // <sys/xattr.h>, which Glibc's module leaves out: the disk cache stores each file's digest as an attribute.
        .systemLibrary(name: "CFileAttributes"),
        // CRC-32C with the CPU's instruction: the checksum the disk cache keeps beside each file.
        .target(name: "CChecksum"),
        // A baseline JPEG at 1/8 scale from its DC coefficients, the AC codes skipped (thumbnails of baseline photos).
        .target(name: "CJPEGEighth", linkerSettings: [.linkedLibrary("m")]),
        // The one lock of the package (a pthread mutex ThreadSanitizer can see), shared by every target.
        .target(name: "KingfisherLocking", swiftSettings: strictSettings),
        .target(
            name: "Kingfisher",
            dependencies: [
                "KingfisherLocking",
                "CVips",
                "CFileAttributes",
                "CChecksum",
                "CJPEGEighth",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strictSettings
        ),
        // libchafa through pkg-config, plus a header of small wrappers (GLib macros Swift cannot call).
        .systemLibrary(
            name: "CChafa",
            pkgConfig: "chafa",
            providers: [.apt(["libchafa-dev"]), .brew(["chafa"])]
        ),
        // The terminal image view: an image target drawing with libchafa.
        .target(
            name: "KingfisherTerminal",
            dependencies: [
                "KingfisherLocking", "Kingfisher", "CChafa",
            ],
            swiftSettings: strictSettings
        ),
        // A loopback HTTP server with fault switches, for the tests and for `kf demo`.
        .target(
            name: "KingfisherTestSupport",
            dependencies: [
                "KingfisherLocking", "Kingfisher", "CVips",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            exclude: ["S3/s3_test_server.py", "OTLP/otlp_receiver.py"],
            swiftSettings: strictSettings
        ),
        // The image server `kf serve` runs: thumbor URLs on Hummingbird routes a user can mount in their own app.
        .target(
            name: "KingfisherServer",
            dependencies: [
                "KingfisherLocking",
                "Kingfisher",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        // GTK 4, plus a header of wrappers (GObject casts, closures on the main context); its flags on Linux come from
        // Sources/CGtk/CGtk.pc (see gtkPkgConfig above).
        .systemLibrary(
            name: "CGtk",
            pkgConfig: gtkPkgConfig,
            providers: [.apt(["libgtk-4-dev"]), .brew(["gtk4"])]
        ),
        // The GTK 4 image view: KFImageView and its placeholders, indicators and transitions.
        .target(
            name: "KingfisherGTK",
            dependencies: ["KingfisherLocking", "Kingfisher", "CGtk"],
            swiftSettings: strictSettings
        ),
        // What the `kf` commands share: their options, the session they retrieve through, files, failures, the console.
        .target(
            name: "KfCommandKit",
            dependencies: [
                "KingfisherLocking",
                "Kingfisher",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: strictSettings
        ),
        // `kf`: libvips and the system's libraries, nothing of GTK or chafa. `kf gallery` and `kf view` run the
        // executables below when they are installed beside it or on PATH.
        .executableTarget(
            name: "kf",
            dependencies: [
                "KingfisherLocking",
                "Kingfisher",
                "KfCommandKit",
                "KingfisherServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        // `kf gallery`: the GTK 4 window.
        .executableTarget(
            name: "KfGallery",
            dependencies: [
                "KingfisherLocking", "Kingfisher", "KfCommandKit", "KingfisherGTK", "CGtk",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: strictSettings
        ),
        // `kf view`: images in the terminal, drawn with libchafa.
        .executableTarget(
            name: "KfView",
            dependencies: [
                "KingfisherLocking", "Kingfisher", "KfCommandKit", "KingfisherTerminal",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // An example app: a Hummingbird service answering thumbnail requests through KingfisherManager (not shipped;
        // its test runs it).
        .executableTarget(
            name: "ThumbnailService",
            dependencies: [
                "Kingfisher",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Examples/ThumbnailService"
        ),
        .testTarget(
            name: "KingfisherTests",
            dependencies: [
                "KingfisherLocking", "CChecksum", "CFileAttributes", "CJPEGEighth",
                "Kingfisher", "CVips", "KingfisherTestSupport", .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            exclude: ["Reference"],  // images the tests read by path
            swiftSettings: strictSettings
        ),
        // The GTK view in real windows (under Xvfb in CI; skipped without a display).
        .testTarget(
            name: "KingfisherGTKTests",
            dependencies: ["KingfisherLocking", "KingfisherGTK", "Kingfisher", "CGtk", "KingfisherTestSupport"],
            swiftSettings: strictSettings
        ),
        // Kingfisher's own image-view tests on KFImageView: XCTest, GTK on the main thread (under Xvfb in CI).
        .testTarget(
            name: "KingfisherGTKParityTests",
            dependencies: ["KingfisherLocking", "KingfisherGTK", "Kingfisher", "CGtk", "KingfisherTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "KingfisherTerminalTests",
            dependencies: ["KingfisherLocking", "KingfisherTerminal", "Kingfisher", "CVips", "KingfisherTestSupport"],
            swiftSettings: strictSettings
        ),
        // The image server's routes on a real Hummingbird server, fetching from a loopback origin.
        .testTarget(
            name: "KingfisherServerTests",
            dependencies: [
                "KingfisherLocking", "KingfisherServer", "Kingfisher", "KingfisherTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        // Runs the built `kf` binary (and the example service) as a subprocess against real files and a loopback server.
        .testTarget(
            name: "KfCommandTests",
            dependencies: [
                "KingfisherLocking", "kf", "KfGallery", "KfView", "ThumbnailService", "Kingfisher",
                "KingfisherTestSupport", "KingfisherServer",
            ],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
