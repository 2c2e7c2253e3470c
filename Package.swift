// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "JSONAPIStream",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "JSONAPIStream", targets: ["JSONAPIStream"]),
        .library(name: "JSONAPIClient", targets: ["JSONAPIClient"]),
        // Foundation's date formatters as date formats of the typed decoding and encoding.
        .library(name: "JSONAPIStreamFoundation", targets: ["JSONAPIStreamFoundation"]),
        // The benchmark passes and the document generator, for `jsonapi bench`, `generate` and
        // the benchmark package (Benchmarks/). Not part of the library's stable API.
        .library(name: "JSONAPIBenchmarking", targets: ["JSONAPIBenchmarking"]),
        // Loading documents into SQLite or PostgreSQL (`jsonapi load`): apps that only parse do
        // not link a database.
        .library(name: "JSONAPILoad", targets: ["JSONAPILoad"]),
        .executable(name: "jsonapi", targets: ["jsonapi"]),
        .executable(name: "jsonapi-fetch", targets: ["jsonapi-fetch"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // The client's logging API (requests, responses, retries, cache decisions, pages).
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        // Tests only: property-based tests (random graphs round-trip).
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CYajl",
            pkgConfig: "yajl",
            providers: [.apt(["libyajl-dev"]), .brew(["yajl"])]
        ),
        // The system's zlib: gzip-compressed input, read as a stream.
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
        ),
        // The system's libzstd: zstd-compressed input, read as a stream.
        .systemLibrary(
            name: "CZstd",
            pkgConfig: "libzstd",
            providers: [.apt(["libzstd-dev"]), .brew(["zstd"])]
        ),
        // The system's libsqlite3, for `jsonapi load`: the database most systems already have,
        // called directly (prepared statements, no ORM in between).
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        // libpq's header, for the test that compares LibPQ's status codes with it. The library
        // itself (`jsonapi load postgres://…`: PostgreSQL's own client, COPY for bulk rows, no
        // driver stack between) is not linked: JSONAPILoad's LibPQ loads it at the first
        // connection.
        .systemLibrary(
            name: "CPostgres",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]
        ),
        // The system's libcurl, for JSONAPIClient's CurlTransport (the default on Linux):
        // a transfer that pauses when its consumer is slow, public-key pinning, deadlines.
        // FoundationNetworking wraps the same library on Linux.
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"]), .brew(["curl"])]
        ),
        // The library's C: the memory budget around yajl, the pipeline's tape recorder (yajl
        // callbacks), the pre-scan's byte loops, signals, URI checks and platform calls the
        // Swift overlay lacks (mremap). It includes yajl's own header, through CYajl.
        .target(name: "CPlatform", dependencies: ["CYajl"]),
        // The core library: CYajl, CZlib, CZstd, CPlatform, the standard library and
        // FoundationEssentials only (and the system's libcrypto, loaded when something is
        // hashed). Not Foundation: it would bring ICU and 6 MiB of resident pages to every
        // process.
        .target(
            name: "JSONAPIStream",
            dependencies: ["CYajl", "CZlib", "CZstd", "CPlatform"]
        ),
        // `DateFormatter` and `ISO8601DateFormatter` as date formats: Foundation, for apps
        // that link it anyway.
        .target(
            name: "JSONAPIStreamFoundation",
            dependencies: ["JSONAPIStream"]
        ),
        // Benchmark passes (bare yajl, the library's passes, Foundation's) and the generator of
        // large compound documents: out of the core library, which apps link.
        .target(
            name: "JSONAPIBenchmarking",
            dependencies: ["JSONAPIStream", "CYajl"]
        ),
        // Loading into databases: StreamSinks of DocumentStream over the system's libsqlite3
        // and libpq (loaded when a PostgreSQL connection is made).
        .target(
            name: "JSONAPILoad",
            dependencies: ["JSONAPIStream", "CSQLite"]
        ),
        // HTTP ingestion over libcurl (CurlTransport) or URLSession: JSONAPIStream, CCurl,
        // swift-log and Foundation(Networking) only.
        .target(
            name: "JSONAPIClient",
            dependencies: ["JSONAPIStream", "CCurl", .product(name: "Logging", package: "swift-log")]
        ),
        // What the command-line programs share: option groups, output files, diagnostics.
        .target(
            name: "JSONAPICommandSupport",
            dependencies: [
                "JSONAPIStream",
                "CPlatform",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The `jsonapi` command. No networking: `jsonapi fetch` runs `jsonapi-fetch`.
        .executableTarget(
            name: "jsonapi",
            dependencies: [
                "JSONAPIStream",
                "JSONAPIBenchmarking",
                "JSONAPICommandSupport",
                "JSONAPILoad",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // `jsonapi fetch`, a program of its own so that only it links FoundationNetworking.
        .executableTarget(
            name: "jsonapi-fetch",
            dependencies: [
                "JSONAPIStream",
                "JSONAPIClient",
                .product(name: "Logging", package: "swift-log"),
                "JSONAPICommandSupport",
                "JSONAPILoad",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "JSONAPIStreamTests",
            dependencies: [
                "JSONAPIStream",
                "JSONAPIStreamFoundation",
                "JSONAPIBenchmarking",
                "JSONAPILoad",
                "CPlatform",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "jsonapiTests",
            dependencies: ["jsonapi", "JSONAPIStream", "JSONAPIBenchmarking", "JSONAPILoad", "JSONAPICommandSupport", "CPostgres"]
        ),
        // End to end against the Django test server (TestServer/, Scripts/test-server.sh).
        .testTarget(
            name: "JSONAPIClientTests",
            dependencies: [
                "JSONAPIClient", "JSONAPIStream", "JSONAPILoad", "jsonapi", "jsonapi-fetch",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ]
)
