import Foundation

/// Median, 99th percentile and maximum of a set of durations (seconds).
struct Distribution: Sendable, Codable {
    var count: Int
    var median: Double
    var p99: Double
    var max: Double

    init?(_ samples: [Double]) {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        count = sorted.count
        median = sorted[sorted.count / 2]
        p99 = sorted[Swift.min(sorted.count - 1, Int((Double(sorted.count) * 0.99).rounded(.up)) - 1)]
        max = sorted[sorted.count - 1]
    }
}

/// Everything one run measured (seconds, KiB).
struct RunFigures: Sendable, Codable {
    var loadAverage = ""
    var rawConnectToWelcome: Double?
    var startToJoin: Double?
    var ping: Distribution?
    /// The same round trip answered by a trivial responder in the test client (the floor).
    var floor: Distribution?
    var near: Distribution?
    var whereFigures: Distribution?
    /// Burst start → the probe saw the burst's last line (the server's relay time).
    var burstRelay: Double?
    /// Last burst line seen → the bot's answer to a `!ping` sent then.
    var burstAnswer: Double?
    /// The bot's CPU from burst start to that answer.
    var burstCPU: Double?
    /// A pin written to the directory by someone else (`--post-command`): the write began → the
    /// bot's announcement.
    var announcement: Distribution?
    var peakRSSKiB: Int?
    var rssKiB: Int?
    var threads: Int?
    var totalCPU: Double?

    /// Start → JOIN less the raw client's connect → 001 of the same run.
    var ownStartup: Double? {
        guard let startToJoin, let rawConnectToWelcome else { return nil }
        return startToJoin - rawConnectToWelcome
    }
}

/// The table (metrics × runs, then the median of the runs) and the JSON of a set of runs.
struct Report {
    var label: String
    var runs: [RunFigures]

    private struct Row {
        var name: String
        var unit: String
        var value: (RunFigures) -> Double?
    }

    private var rows: [Row] {
        [
            Row(name: "raw client connect→001", unit: "s") { $0.rawConnectToWelcome },
            Row(name: "bot process start→JOIN", unit: "s") { $0.startToJoin },
            Row(name: "  less raw connect→001", unit: "s") { $0.ownStartup },
            Row(name: "!ping median", unit: "ms") { $0.ping.map { $0.median * 1e3 } },
            Row(name: "!ping p99", unit: "ms") { $0.ping.map { $0.p99 * 1e3 } },
            Row(name: "!ping max", unit: "ms") { $0.ping.map { $0.max * 1e3 } },
            Row(name: "floor: trivial responder median", unit: "ms") { $0.floor.map { $0.median * 1e3 } },
            Row(name: "floor: trivial responder p99", unit: "ms") { $0.floor.map { $0.p99 * 1e3 } },
            Row(name: "!near median", unit: "ms") { $0.near.map { $0.median * 1e3 } },
            Row(name: "!near p99", unit: "ms") { $0.near.map { $0.p99 * 1e3 } },
            Row(name: "!where median", unit: "ms") { $0.whereFigures.map { $0.median * 1e3 } },
            Row(name: "!where p99", unit: "ms") { $0.whereFigures.map { $0.p99 * 1e3 } },
            Row(name: "burst relayed by server", unit: "s") { $0.burstRelay },
            Row(name: "burst → answering again", unit: "s") { $0.burstAnswer },
            Row(name: "bot CPU for the burst", unit: "s") { $0.burstCPU },
            Row(name: "post written → announced, median", unit: "ms") { $0.announcement.map { $0.median * 1e3 } },
            Row(name: "post written → announced, max", unit: "ms") { $0.announcement.map { $0.max * 1e3 } },
            Row(name: "bot peak RSS (VmHWM)", unit: "MiB") { $0.peakRSSKiB.map { Double($0) / 1024 } },
            Row(name: "bot RSS at end", unit: "MiB") { $0.rssKiB.map { Double($0) / 1024 } },
            Row(name: "bot threads", unit: "") { $0.threads.map(Double.init) },
            Row(name: "bot CPU total", unit: "s") { $0.totalCPU },
        ]
    }

    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    static func format(_ value: Double?) -> String {
        guard let value else { return "—" }
        if value == 0 { return "0" }
        if abs(value) >= 100 { return String(format: "%.0f", value) }
        if abs(value) >= 10 { return String(format: "%.1f", value) }
        if abs(value) >= 1 { return String(format: "%.2f", value) }
        return String(format: "%.3f", value)
    }

    func table() -> String {
        let present = rows.filter { row in runs.contains { row.value($0) != nil } }
        let nameWidth = max(28, (present.map { $0.name.count + $0.unit.count + 3 }.max() ?? 0))
        var header = "\(label)".padding(toLength: nameWidth, withPad: " ", startingAt: 0)
        for number in runs.indices { header += "  " + "run \(number + 1)".leftPadded(8) }
        if runs.count > 1 { header += "  " + "median".leftPadded(8) }
        var lines = [header]
        for row in present {
            let name = row.unit.isEmpty ? row.name : "\(row.name) (\(row.unit))"
            var line = name.padding(toLength: nameWidth, withPad: " ", startingAt: 0)
            let values = runs.map(row.value)
            for value in values { line += "  " + Self.format(value).leftPadded(8) }
            if runs.count > 1 { line += "  " + Self.format(Self.median(values.compactMap { $0 })).leftPadded(8) }
            lines.append(line)
        }
        lines.append("load average at each run start: " + runs.map(\.loadAverage).joined(separator: " | "))
        return lines.joined(separator: "\n")
    }

    func json() throws -> Data {
        var medians: [String: Double] = [:]
        for row in rows {
            if let value = Self.median(runs.compactMap(row.value)) {
                medians[row.unit.isEmpty ? row.name : "\(row.name) (\(row.unit))"] = value
            }
        }
        struct Document: Encodable {
            var label: String
            var runs: [RunFigures]
            var medians: [String: Double]
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(Document(label: label, runs: runs, medians: medians))
    }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
