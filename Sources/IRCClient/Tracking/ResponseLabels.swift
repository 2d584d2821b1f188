import IRCProtocol

/// The labels the client gives its queries where the server acknowledged `labeled-response` (with
/// `batch`), and which label each inbound line answers: its own `label` tag (a one-line answer, or
/// `ACK` for none), or that of the labeled batch it is part of (a batch opened inside it counts as
/// part of it). A pure value, fed every inbound line.
struct ResponseLabels: Sendable {
    /// The most batches kept open at once: a server that opens batches without end makes the client
    /// hold no more (lines of the others then answer no label, and their lookups end by deadline).
    static let maximumOpenBatches = 64

    private struct OpenBatch: Sendable {
        var label: String
        /// The labeled batch itself, not one opened inside it.
        var isOutermost: Bool
    }

    private var lastNumber = 0
    /// Open batch reference → the label it answers.
    private var batches: [String: OpenBatch] = [:]

    /// A label not used before on this client (`w1`, `w2`…).
    mutating func next() -> String {
        lastNumber += 1
        return "w\(lastNumber)"
    }

    /// A new connection: no batch is open.
    mutating func connectionStarted() {
        batches = [:]
    }

    /// The label `message` answers (nil when none), and whether the server has said all it will say
    /// for that label with it (a one-line answer, `ACK`, or the end of the labeled batch).
    mutating func read(_ message: IRCMessage) -> (label: String?, isLast: Bool) {
        let ownLabel = message.tags["label"].flatMap { $0.isEmpty ? nil : $0 }
        let enclosing = message.tags["batch"].flatMap { batches[$0] }
        if message.command == "BATCH", let reference = message.parameters.first, reference.count > 1 {
            let name = String(reference.dropFirst())
            if reference.hasPrefix("+") {
                guard let label = ownLabel ?? enclosing?.label else { return (nil, false) }
                if batches.count < Self.maximumOpenBatches || batches[name] != nil {
                    batches[name] = OpenBatch(label: label, isOutermost: ownLabel != nil)
                }
                return (label, false)
            }
            if reference.hasPrefix("-"), let closed = batches.removeValue(forKey: name) {
                return (closed.label, closed.isOutermost)
            }
            return (nil, false)
        }
        if let ownLabel { return (ownLabel, true) }
        return (enclosing?.label, false)
    }
}
