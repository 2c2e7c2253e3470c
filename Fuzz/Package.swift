// swift-tools-version:6.0
// libFuzzer targets for JSONAPIStream. Build and run with `Scripts/fuzz.sh TARGET SECONDS`
// (from the repository root); see that script for the flags.
import Foundation
import PackageDescription

// A path dependency is named after its folder: the repository's checkout folder.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

let targets = ["FuzzParse", "FuzzChunks", "FuzzRoundTrip", "FuzzSyntax", "FuzzDecode", "FuzzLoad", "FuzzWorkers", "FuzzElements"]

let package = Package(
    name: "JSONAPIStreamFuzz",
    platforms: [.macOS(.v13)],
    products: targets.map { .executable(name: $0, targets: [$0]) },
    dependencies: [.package(path: "..")],
    targets: [
        // libFuzzer's driver entry point, declared for Swift.
        .target(name: "CFuzzerDriver"),
        // The checks: links to Tests/JSONAPIStreamTests/FuzzRegressionTests.swift and
        // FuzzLoadChecks.swift, compiled
        // without its tests, so that fuzz targets and regression tests share one source.
        .target(
            name: "FuzzChecks",
            dependencies: [.product(name: "JSONAPIStream", package: root), .product(name: "JSONAPILoad", package: root)],
            swiftSettings: [.define("FUZZING")]
        ),
        // One input through a target's checks, and the hand-over to libFuzzer (shared by the
        // targets; each has only its `<module>_main`).
        .target(name: "FuzzHarness", dependencies: ["FuzzChecks", "CFuzzerDriver"]),
    ]
        + targets.map {
            .executableTarget(
                name: $0,
                dependencies: ["FuzzChecks", "FuzzHarness"],
                swiftSettings: [.unsafeFlags(["-parse-as-library"])]
            )
        }
)
