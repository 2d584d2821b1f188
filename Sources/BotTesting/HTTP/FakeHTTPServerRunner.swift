import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// Runs a Hummingbird responder on 127.0.0.1 for tests. `start()` returns once the socket is bound;
/// `stop()` ends the server and its pending requests.
///
/// The first start picks a free port below the system's ephemeral range (32768–60999 on Linux), so
/// that after a ``stop()`` no outgoing connection of another test can take the port before the
/// server comes back on it.
actor FakeHTTPServerRunner {
    typealias Handler = @Sendable (Request) async throws -> Response

    private let handler: Handler
    private let label: String
    private var runTask: Task<Void, any Error>?
    private var serviceGroup: ServiceGroup?
    private(set) var port: Int?

    init(label: String, handler: @escaping Handler) {
        self.label = label
        self.handler = handler
    }

    /// Binds and starts serving; returns the bound port. Starting twice returns the same port.
    /// `preferredPort` binds that port (to come back where clients expect the server after
    /// ``stop()``); 0 picks a free one.
    func start(preferredPort: Int = 0) async throws -> Int {
        if let port { return port }
        guard preferredPort == 0 else { return try await bind(port: preferredPort) }
        for _ in 0..<50 {
            if let bound = try? await bind(port: Int.random(in: 20_000..<32_000)) { return bound }
        }
        return try await bind(port: 0)
    }

    private func bind(port preferredPort: Int) async throws -> Int {
        var logger = Logger(label: label)
        logger.logLevel = .critical  // cancellation on stop() is reported as an error; not one here
        let (ports, continuation) = AsyncThrowingStream.makeStream(of: Int.self)
        let handler = self.handler
        let application = Application(
            responder: CallbackResponder<BasicRequestContext> { request, _ in try await handler(request) },
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: preferredPort)),
            onServerRunning: { channel in
                if let port = channel.localAddress?.port {
                    continuation.yield(port)
                } else {
                    continuation.finish(throwing: FakeHTTPServerError.noBoundPort)
                }
            },
            logger: logger
        )
        // Run in a service group so that stop() can shut the server down gracefully: cancelling it
        // while an accepted connection still waits to be handled traps in NIO ("Deinited
        // NIOAsyncWriter without calling finish()").
        let group = ServiceGroup(
            configuration: .init(services: [application], gracefulShutdownSignals: [], logger: logger))
        let task = Task {
            do {
                try await group.run()
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
                throw error
            }
        }
        runTask = task
        serviceGroup = group
        do {
            for try await bound in ports {
                port = bound
                return bound
            }
        } catch {
            runTask = nil
            throw error
        }
        task.cancel()
        runTask = nil
        throw FakeHTTPServerError.noBoundPort
    }

    /// Stops the server: cancels pending handlers and closes the listening socket.
    /// Stops accepting, lets the connections already accepted finish (at most 2 seconds: a handler
    /// that sleeps on purpose is then cancelled), and waits until the server is gone.
    func stop() async {
        guard let task = runTask else { return }
        let group = serviceGroup
        runTask = nil
        serviceGroup = nil
        port = nil
        await group?.triggerGracefulShutdown()
        let deadline = Task {
            try await Task.sleep(for: .seconds(2))
            task.cancel()
        }
        _ = await task.result
        deadline.cancel()
    }
}

enum FakeHTTPServerError: Error {
    case noBoundPort
}

extension Response {
    /// A response with a body and content type.
    static func fakeAnswer(_ body: [UInt8], status: HTTPResponse.Status, headers: HTTPFields = [:])
        -> Response
    {
        var fields = headers
        if fields[.contentType] == nil {
            fields[.contentType] = "application/json"
        }
        return Response(
            status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }
}
