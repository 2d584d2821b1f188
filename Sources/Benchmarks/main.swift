// onthemap-bench: prints throughput and latency figures. Build in release:
//   swift run -c release --static-swift-stdlib onthemap-bench [irc|nearest|gazetteer|sqlite|all]
//   swift run -c release --static-swift-stdlib onthemap-bench --profile <parse|serialize|roundtrip> N   (for callgrind)
//   swift run -c release --static-swift-stdlib onthemap-bench seed-pins FILE COUNT   (synthetic pins for scripts/bench-irc)
//   onthemap-bench post-pin POSTGRES_URL NUMBER   (one pin in a shared directory, for scripts/bench-instances)
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.count == 3, arguments[0] == "seed-pins", let count = Int(arguments[2]) {
    await PinSeeder.run(path: arguments[1], count: count)
} else if arguments.count == 3, arguments[0] == "post-pin", let number = Int(arguments[2]) {
    await SharedDirectoryPoster.run(url: arguments[1], number: number)
} else if arguments.count == 3, arguments[0] == "--profile", let passes = Int(arguments[2]) {
    print(IRCParseBenchmark.profile(phase: arguments[1], passes: passes))
} else {
    let selected = Set(arguments.isEmpty ? ["all"] : arguments)
    let all = selected.contains("all")
    if all || selected.contains("irc") { IRCParseBenchmark.run() }
    if all || selected.contains("nearest") { NearestBenchmark.run() }
    if all || selected.contains("gazetteer") { GazetteerBenchmark.run() }
    if all || selected.contains("sqlite") { await SQLiteBenchmark.run() }
}
