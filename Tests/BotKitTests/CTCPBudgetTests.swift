import BotKit
import BotTesting
import Testing

@Suite("CTCP answers have a budget per host and in all")
struct CTCPBudgetTests {
    @Test func oneHostGetsItsBurstThenOneAnswerPerInterval() {
        var budget = CTCPBudget(
            perHost: .init(burst: 3, every: .seconds(30)), overall: .init(burst: 100, every: .seconds(1)))
        let answered = (0..<10).filter { _ in budget.allows(host: "flood.example", at: .seconds(1)) }
        #expect(answered.count == 3)
        let otherHost = budget.allows(host: "other.example", at: .seconds(1))
        let tooSoon = budget.allows(host: "flood.example", at: .seconds(30))
        let afterInterval = budget.allows(host: "flood.example", at: .seconds(31))
        let again = budget.allows(host: "flood.example", at: .seconds(31))
        #expect(otherHost && !tooSoon && afterInterval && !again)
    }

    @Test func manyHostsShareTheOverallBudget() {
        var budget = CTCPBudget()
        let answered = (0..<20).filter { budget.allows(host: "h\($0).example", at: .seconds(10)) }
        #expect(answered.count == 5)
        let tooSoon = budget.allows(host: "late.example", at: .seconds(12))
        let afterInterval = budget.allows(host: "late.example", at: .seconds(15))
        #expect(!tooSoon && afterInterval)
    }

    @Test func aCTCPFloodFromManyHostsGetsOnlyTheBudgetAnsweredAndCommandsStillAre() async {
        let bot = TestBot(plugins: [CorePlugin(aboutLines: [])], settings: .init(version: "OnTheMapBot test"))
        var answers = 0
        for round in 0..<3 {
            for index in 0..<20 {
                let flooder = bot.user("flood\(index)", host: "10.0.0.\(index)")
                let query = round % 2 == 0 ? "\u{01}VERSION\u{01}" : "\u{01}PING \(round)\u{01}"
                answers += await bot.say(query, from: flooder, origin: .privateMessage).count
            }
        }
        #expect(answers == 5)
        #expect(await bot.say("!ping", in: "#class", as: "sam").map(\.text) == ["sam: pong"])
        bot.clock.advance(by: .seconds(5))
        #expect(await bot.dm("\u{01}VERSION\u{01}", as: "sam").count == 1)
        #expect(await bot.dm("\u{01}VERSION\u{01}", as: "tia").isEmpty)
    }
}
