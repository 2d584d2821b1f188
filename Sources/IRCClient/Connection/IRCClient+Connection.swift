#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import IRCProtocol
import Logging
import NIOCore
import NIOPosix

/// One connection from connect to close: the pipeline (TLS → line decoder → the reader's stream),
/// the reader, the writer and the maintenance tick.
extension IRCClient {
    /// One connection from connect to close; returns how long it stayed registered (nil if it never was).
    func runConnection(attempt: Int) async -> Duration? {
        let endpoint = await connectionEndpoint()
        let transport = endpoint.secure ? "" : " (plaintext)"
        emit(.connecting(host: configuration.host, port: endpoint.port, attempt: attempt))
        logger.info("Connecting to \(configuration.host):\(endpoint.port)\(transport) (attempt \(attempt))")
        let tlsSetup: IRCTLSSetup?
        do {
            tlsSetup =
                endpoint.secure
                ? try IRCTLSSetup(configuration: configuration.tls, host: configuration.host, logger: logger)
                : nil
        } catch let error as IRCTLSError where error.isTransient {
            // Out of file descriptors (a flood of connections on another socket of the process):
            // nothing is wrong with the settings, so retry with the usual backoff.
            let reason = "\(error); will retry"
            logger.warning("\(reason)")
            emit(.connectionFailed(reason: reason))
            return nil
        } catch {
            // Unusable TLS settings will not fix themselves: stop rather than retry forever.
            let reason = "TLS configuration: \(error)"
            setupFailure = reason
            emit(.connectionFailed(reason: reason))
            return nil
        }
        let connection: NIOAsyncChannel<String, Never>
        do {
            connection = try await connect(tlsSetup: tlsSetup, port: endpoint.port)
        } catch {
            var reason = "cannot connect to \(configuration.host):\(endpoint.port): \(error)"
            if let ioError = error as? IOError, ioError.errnoCode == EMFILE || ioError.errnoCode == ENFILE {
                reason += " (the process is out of file descriptors; will retry)"
            }
            logger.warning("\(reason)")
            emit(.connectionFailed(reason: reason))
            return nil
        }
        if stopRequested || Task.isCancelled {
            try? await connection.channel.close()
            return nil
        }
        connectionID += 1
        let id = connectionID
        lastConnectionFailure = nil
        channel = connection.channel
        closeReason = nil
        perform(machine.connected(at: clock.now, secure: endpoint.secure, port: endpoint.port))

        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.runWriter(connectionID: id) }
            group.addTask { await self.runMaintenance(connectionID: id) }
            await readLines(from: connection)
            group.cancelAll()
        }
        var reason = closeReason ?? "connection closed by the server"
        if let pinFailure = tlsSetup?.lastPinFailure { reason = pinFailure.description }
        if let tlsSetup, !machine.isRegistered, reason.hasPrefix(ConnectionError.certificateRefused) {
            reason = await explainRefusedCertificate(tlsSetup, fallback: reason)
        }
        let registeredFor = machine.registeredAt.map { $0.duration(to: clock.now) }
        rescheduleSTSPolicyAtClose()
        channel = nil
        // A shutdown waiting for queued lines to leave stops waiting: they will not leave on this connection.
        endShutdownDrain()
        writerWake?.finish()
        writerWake = nil
        perform(machine.connectionClosed(reason: reason, at: clock.now))
        return registeredFor
    }

    private func connect(tlsSetup: IRCTLSSetup?, port: Int) async throws -> NIOAsyncChannel<String, Never> {
        let maximumLineLength = configuration.maximumLineLength
        let decoderLogger = logger
        let statistics = inboundStatistics
        return try await ClientBootstrap(group: eventLoopGroup)
            .connectTimeout(.nanoseconds(Self.nanoseconds(configuration.connectTimeout)))
            .connect(host: configuration.host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    if let tlsSetup { try pipeline.addHandler(try tlsSetup.makeHandler()) }
                    try pipeline.addHandler(
                        ByteToMessageHandler(
                            IRCLineDecoder(
                                maximumLineLength: maximumLineLength,
                                logger: decoderLogger,
                                statistics: statistics
                            )
                        )
                    )
                    // Lines wait in the stream until the reader takes them; while too many wait, the
                    // socket is not read (TCP then slows the server down).
                    return try NIOAsyncChannel<String, Never>(wrappingChannelSynchronously: channel)
                }
            }
    }

    /// Feeds every line read to the machine until the connection closes; a pipeline error (TLS,
    /// reset…) becomes the close reason unless one was recorded first.
    private func readLines(from connection: NIOAsyncChannel<String, Never>) async {
        do {
            try await connection.executeThenClose { inbound in
                for try await line in inbound {
                    perform(machine.lineReceived(line, at: clock.now))
                }
            }
        } catch {
            // `executeThenClose` has closed the channel.
            if closeReason == nil { closeReason = ConnectionError.describe(error) }
        }
    }

    /// The reason for refusing a server certificate, in words (expired, wrong name, untrusted), logged
    /// as an error: a refused certificate is never a reason to connect without TLS.
    private func explainRefusedCertificate(_ tlsSetup: IRCTLSSetup, fallback: String) async -> String {
        let server = "\(configuration.host):\(sts.endpoint.port)"
        var reason = fallback
        if let leaf = await CertificateDiagnosis.probe(
            host: configuration.host,
            port: sts.endpoint.port,
            serverHostname: tlsSetup.serverHostname,
            group: eventLoopGroup,
            timeout: configuration.connectTimeout
        )?.first {
            let problems = CertificateDiagnosis.problems(
                leaf: leaf,
                expectedName: tlsSetup.expectedName,
                trusted: tlsSetup.trustedCertificates
            )
            if !problems.isEmpty {
                reason = "TLS certificate refused: \(problems.joined(separator: "; "))"
            }
        }
        logger.error("Refusing the TLS connection to \(server): \(reason) (no plaintext fallback)")
        return reason
    }

    // MARK: Maintenance

    private func runMaintenance(connectionID id: Int) async {
        let tick = min(
            Duration.milliseconds(250),
            configuration.keepalive.timeout / 4,
            configuration.keepalive.pingAfterSilence / 4
        )
        while !Task.isCancelled, id == connectionID {
            do { try await Task.sleep(for: tick) } catch { return }
            guard id == connectionID else { return }
            maintenanceTick()
        }
    }

    private func maintenanceTick() {
        let dropped = queue.takeDroppedCount()
        if dropped > 0 {
            logger.warning(
                "Send queue full (\(queue.capacity) lines): dropped \(dropped) line(s) of the longest backlog"
            )
        }
        guard channel != nil else { return }
        perform(machine.tick(at: clock.now))
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
    }
}
