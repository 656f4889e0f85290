// swift-tools-version:6.0
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Kingfisher",
    products: [
        .library(name: "Kingfisher", targets: ["Kingfisher"]),
        .executable(name: "kf", targets: ["kf"]),
    ],
    targets: [
        // libvips through pkg-config, plus a header of non-variadic `cvips_*` wrappers.
        .systemLibrary(
            name: "CVips",
            pkgConfig: "vips",
            providers: [.apt(["libvips-dev"]), .brew(["vips"])]
        ),
        .target(
            name: "Kingfisher",
            dependencies: ["CVips"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "kf",
            dependencies: ["Kingfisher"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "KingfisherTests",
            dependencies: ["Kingfisher", "CVips"],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
