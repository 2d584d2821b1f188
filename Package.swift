// swift-tools-version: 6.1
// TEMPORARY manifest while helpers build their modules elsewhere.
import PackageDescription

let swiftSettings: [SwiftSetting] = [.swiftLanguageMode(.v6)]

let package = Package(
    name: "OnTheMapBot",
    products: [.executable(name: "onthemap-bot", targets: ["OnTheMapBotCLI"])],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    ],
    targets: [
        .target(name: "IRCProtocol", swiftSettings: swiftSettings),
        .target(name: "IRCClient", dependencies: ["IRCProtocol", .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"), .product(name: "NIOConcurrencyHelpers", package: "swift-nio"), .product(name: "NIOSSL", package: "swift-nio-ssl"), .product(name: "Logging", package: "swift-log"), .product(name: "Crypto", package: "swift-crypto")], swiftSettings: swiftSettings),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .target(name: "OnTheMapService", dependencies: ["CZlib", .product(name: "Logging", package: "swift-log")],
                exclude: ["Geo", "Security"], resources: [.copy("Geocoding/Resources/gazetteer.tsv.gz")], swiftSettings: swiftSettings),
        .target(name: "BotKit", dependencies: ["IRCProtocol", "OnTheMapService", .product(name: "Logging", package: "swift-log")], swiftSettings: swiftSettings),
        .target(name: "BotTesting", dependencies: ["BotKit", "IRCProtocol", .product(name: "Logging", package: "swift-log"), .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"), .product(name: "NIOSSL", package: "swift-nio-ssl")], exclude: ["HTTP"], swiftSettings: swiftSettings),
        .target(name: "OnTheMapApp", dependencies: ["BotKit", "IRCClient", "IRCProtocol", "OnTheMapService", .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"), .product(name: "ArgumentParser", package: "swift-argument-parser"), .product(name: "Yams", package: "Yams"), .product(name: "Logging", package: "swift-log")], swiftSettings: swiftSettings),
        .executableTarget(name: "OnTheMapBotCLI", dependencies: ["OnTheMapApp"], swiftSettings: swiftSettings),
        .testTarget(name: "BotKitTests", dependencies: ["BotKit", "BotTesting", "IRCProtocol", "OnTheMapService"], swiftSettings: swiftSettings),
        .testTarget(name: "IRCClientTests", dependencies: ["IRCClient", "IRCProtocol", "BotTesting", .product(name: "NIOCore", package: "swift-nio"), .product(name: "Logging", package: "swift-log")], swiftSettings: swiftSettings),
        .testTarget(name: "IRCProtocolTests", dependencies: ["IRCProtocol", .product(name: "Yams", package: "Yams")], resources: [.copy("Fixtures")], swiftSettings: swiftSettings),
        .testTarget(name: "OnTheMapServiceTests", dependencies: ["OnTheMapService"], swiftSettings: swiftSettings),
        .testTarget(name: "OnTheMapAppTests", dependencies: ["OnTheMapApp", "BotTesting", "IRCProtocol", .product(name: "Logging", package: "swift-log")], swiftSettings: swiftSettings),
    ]
)
