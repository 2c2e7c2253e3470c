// swift-tools-version:6.1
import PackageDescription

// The benchmarks live in their own package so that the library never depends on
// package-benchmark: `cd Benchmarks && swift package benchmark` (see Benchmarks/README.md).
let package = Package(
    name: "JSONAPIStreamBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "JSONAPIStream", path: ".."),
        // The trait list replaces the default traits: without it, 1.38.1 also asks for
        // swift-runtime-interposer, which is not needed for these metrics.
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "Parsing",
            dependencies: [
                .product(name: "JSONAPIStream", package: "JSONAPIStream"),
                .product(name: "JSONAPIBenchmarking", package: "JSONAPIStream"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/Parsing",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    ]
)
