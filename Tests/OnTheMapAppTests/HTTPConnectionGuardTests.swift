import HTTPTypes
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Testing

@testable import OnTheMapApp

/// The handlers that guard the HTTP listeners, on NIO's embedded channels: the connection caps and
/// the request-head timeout.
@Suite struct HTTPConnectionGuardTests {
    static let quiet = Logger(label: "quiet", factory: { _ in SwiftLogNoOpLogHandler() })

    /// The counter refuses past the per-address cap while other addresses still get in, refuses
    /// everyone past the total, and lets a closed connection's place be taken again.
    @Test func theCounterCapsPerAddressAndInAll() {
        let counter = HTTPConnectionCounter(total: 3, perAddress: 2)
        #expect(counter.open(from: "10.0.0.1") == nil)
        #expect(counter.open(from: "10.0.0.1") == nil)
        #expect(counter.open(from: "10.0.0.1") == .tooManyFromAddress)
        #expect(counter.open(from: "10.0.0.2") == nil)
        #expect(counter.open(from: "10.0.0.3") == .tooMany)
        counter.close(from: "10.0.0.1")
        #expect(counter.open(from: "10.0.0.1") == nil)
        #expect(counter.current.total == 3)
        counter.close(from: "10.0.0.1")
        counter.close(from: "10.0.0.1")
        counter.close(from: "10.0.0.2")
        #expect(counter.current.total == 0)
        #expect(counter.current.perAddress.isEmpty)
    }

    /// Without a per-address cap (behind a reverse proxy) only the total applies.
    @Test func withoutAPerAddressCapOnlyTheTotalApplies() {
        let counter = HTTPConnectionCounter(total: 3, perAddress: nil)
        for _ in 0..<3 { #expect(counter.open(from: "127.0.0.1") == nil) }
        #expect(counter.open(from: "127.0.0.1") == .tooMany)
    }

    /// On the listening channel, an accepted connection over the cap is closed at once and never
    /// reaches the handlers behind; one within it passes, and its close frees its place.
    @Test func theAcceptGuardClosesConnectionsOverTheCap() throws {
        let counter = HTTPConnectionCounter(total: 10, perAddress: 1)
        let listener = EmbeddedChannel(
            handler: AcceptGuardHandler(counter: counter, name: "test listener", logger: Self.quiet))
        let first = EmbeddedChannel()
        first.remoteAddress = try SocketAddress(ipAddress: "10.0.0.1", port: 40_000)
        _ = try first.connect(to: SocketAddress(ipAddress: "10.0.0.9", port: 80)).wait()
        let second = EmbeddedChannel()
        second.remoteAddress = try SocketAddress(ipAddress: "10.0.0.1", port: 40_001)
        _ = try second.connect(to: SocketAddress(ipAddress: "10.0.0.9", port: 80)).wait()

        try listener.writeInbound(first as any Channel)
        #expect(try listener.readInbound(as: (any Channel).self) != nil)
        try listener.writeInbound(second as any Channel)
        #expect(try listener.readInbound(as: (any Channel).self) == nil)
        #expect(!second.isActive)
        #expect(first.isActive)

        #expect(counter.current.total == 1)
        _ = try first.close().wait()
        first.embeddedEventLoop.run()
        #expect(counter.current.total == 0)
        _ = try? listener.finish()
    }

    /// A connection that sends no request head is closed when the head timeout passes; one that
    /// sends its head in time is left to the keep-alive timeout.
    @Test func theHeadTimeoutClosesOnlyConnectionsWithoutAHead() throws {
        let silent = EmbeddedChannel(handler: RequestHeadTimeoutHandler(timeout: .seconds(5)))
        _ = try silent.connect(to: SocketAddress(ipAddress: "10.0.0.9", port: 80)).wait()
        silent.embeddedEventLoop.advanceTime(by: .milliseconds(4_900))
        #expect(silent.isActive)
        silent.embeddedEventLoop.advanceTime(by: .milliseconds(200))
        #expect(!silent.isActive)

        let talking = EmbeddedChannel(handler: RequestHeadTimeoutHandler(timeout: .seconds(5)))
        _ = try talking.connect(to: SocketAddress(ipAddress: "10.0.0.9", port: 80)).wait()
        talking.embeddedEventLoop.advanceTime(by: .seconds(1))
        let head = HTTPRequest(method: .get, scheme: nil, authority: "map", path: "/")
        try talking.writeInbound(HTTPRequestPart.head(head))
        talking.embeddedEventLoop.advanceTime(by: .seconds(30))
        #expect(talking.isActive)
        _ = try talking.readInbound(as: HTTPRequestPart.self)
        _ = try? talking.finish()
    }

    /// An accepted connection whose handling never starts (the listener stopped in between) is
    /// released without harm: accepting makes no NIOAsyncChannel (one released with its writer open
    /// is a precondition failure in NIO), reads stay off, and the head timeout closes it.
    @Test func aConnectionAcceptedButNeverHandledIsReleasedAndClosed() throws {
        let channel = EmbeddedChannel()
        let http = GuardedHTTP1Channel(responder: { _, _, _ in }, headTimeout: .seconds(5))
        var pending: GuardedHTTP1Channel.PendingConnection? = try http.setup(channel: channel, logger: Self.quiet)
            .wait()
        #expect(pending != nil)
        pending = nil
        _ = try channel.connect(to: SocketAddress(ipAddress: "10.0.0.9", port: 80)).wait()
        channel.embeddedEventLoop.advanceTime(by: .seconds(5))
        #expect(!channel.isActive)
        _ = try? channel.finish()
    }
}
