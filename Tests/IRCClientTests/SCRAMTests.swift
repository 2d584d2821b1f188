import Testing

@testable import IRCClient

/// SCRAM (RFC 5802 / 7677) on its own: the RFC 7677 example exchange, and every way a server message
/// can be refused.
@Suite("SCRAM")
struct SCRAMTests {
    // RFC 7677, section 3: user "user", password "pencil", client nonce rOprNGfwEbeRWgbNEkqO.
    static let nonce = "rOprNGfwEbeRWgbNEkqO"
    static let serverNonce = "rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0"
    static let serverFirst = "r=\(serverNonce),s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"

    static func client(_ hash: SCRAMClient.Hash = .sha256) throws -> SCRAMClient {
        try SCRAMClient(hash: hash, username: "user", password: "pencil", nonce: nonce)
    }

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func theRFC7677ExampleExchange() throws {
        var client = try Self.client()
        #expect(Self.text(client.clientFirst()) == "n,,n=user,r=rOprNGfwEbeRWgbNEkqO")
        let final = try client.clientFinal(answering: Self.bytes(Self.serverFirst))
        #expect(
            Self.text(final)
                == "c=biws,r=\(Self.serverNonce),p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")
        try client.verify(serverFinal: Self.bytes("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="))
    }

    @Test func theSameExchangeWithSHA512() throws {
        // Expected values computed independently (Python's hashlib.pbkdf2_hmac and hmac).
        var client = try Self.client(.sha512)
        let final = try client.clientFinal(answering: Self.bytes(Self.serverFirst))
        #expect(
            Self.text(final)
                == "c=biws,r=\(Self.serverNonce),p=gMGXRcevScNtxZ6/8lQYpGtnsNAc3mGcmNomv+xnoOMw+3R2xNJdMNnzMlTN8PPC6wdp6dybEmDYXYTxwnYPJQ=="
        )
        try client.verify(
            serverFinal: Self.bytes(
                "v=ZQnYEgWQMFmmsM8aQMF0nDDCy/AgCzkwk8CmMZYcMg0vSVlKDanekLtifDSeVGT4+5ZxXnJq199RVG2rR7N7Zw=="))
    }

    @Test func aWrongServerSignatureIsRefused() throws {
        var client = try Self.client()
        _ = try client.clientFinal(answering: Self.bytes(Self.serverFirst))
        #expect(throws: SCRAMClient.Failure.badServerSignature) {
            try client.verify(serverFinal: Self.bytes("v=7rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="))
        }
        // A signature of the right value but cut short is as wrong.
        #expect(throws: SCRAMClient.Failure.badServerSignature) {
            try client.verify(serverFinal: Self.bytes("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl9"))
        }
    }

    @Test func aServerErrorInServerFinalIsAFailure() throws {
        var client = try Self.client()
        _ = try client.clientFinal(answering: Self.bytes(Self.serverFirst))
        #expect(throws: SCRAMClient.Failure.serverError("invalid-proof")) {
            try client.verify(serverFinal: Self.bytes("e=invalid-proof"))
        }
    }

    @Test func aNonceThatDoesNotExtendTheClientsIsRefused() throws {
        var client = try Self.client()
        for nonce in ["XOprNGfwEbeRWgbNEkqO%hvYD", Self.nonce, "rOprNGfwEbeRWgbNEkq"] {
            #expect(throws: SCRAMClient.Failure.nonceNotExtended) {
                try client.clientFinal(answering: Self.bytes("r=\(nonce),s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"))
            }
        }
    }

    @Test func iterationCountsOutsideTheSaneRangeAreRefused() throws {
        var client = try Self.client()
        for count in ["4095", "1", "0", "1000001", "999999999"] {
            #expect(throws: SCRAMClient.Failure.iterationCount(count)) {
                try client.clientFinal(
                    answering: Self.bytes("r=\(Self.serverNonce),s=W22ZaJ0SNY7soEsUEjb6gQ==,i=\(count)"))
            }
        }
        for count in ["-4096", "4096x", "", "1e5", "99999999999"] {
            #expect(throws: SCRAMClient.Failure.self) {
                try client.clientFinal(
                    answering: Self.bytes("r=\(Self.serverNonce),s=W22ZaJ0SNY7soEsUEjb6gQ==,i=\(count)"))
            }
        }
    }

    @Test func malformedServerFirstMessagesAreRefused() throws {
        var client = try Self.client()
        let malformed = [
            "", "garbage", "s=W22ZaJ0SNY7soEsUEjb6gQ==,r=\(Self.serverNonce),i=4096",
            "r=\(Self.serverNonce),s=not base64!,i=4096", "r=\(Self.serverNonce),s=,i=4096",
            "r=\(Self.serverNonce),s=W22ZaJ0SNY7soEsUEjb6gQ=,i=4096",
            "r=\(Self.serverNonce),s=W22ZaJ0SNY7soEsUEjb6gQ==",
            "r=\(Self.serverNonce),s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096,m=must-understand",
            "r=\(Self.nonce)\u{7F}x,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",
            "m=ext,r=\(Self.serverNonce),s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",
        ]
        for message in malformed {
            #expect(throws: SCRAMClient.Failure.self, "\(message)") {
                try client.clientFinal(answering: Self.bytes(message))
            }
        }
        #expect(throws: SCRAMClient.Failure.self) { try client.clientFinal(answering: [0xFF, 0xFE, 0x72, 0x3D]) }
        #expect(throws: SCRAMClient.Failure.serverError("unknown-user")) {
            try client.clientFinal(answering: Self.bytes("e=unknown-user"))
        }
    }

    @Test func malformedServerFinalMessagesAreRefused() throws {
        var client = try Self.client()
        #expect(throws: SCRAMClient.Failure.self) { try client.verify(serverFinal: Self.bytes("v=abc")) }
        _ = try client.clientFinal(answering: Self.bytes(Self.serverFirst))
        for message in ["", "x=1", "v=not base64", "6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="] {
            #expect(throws: SCRAMClient.Failure.self, "\(message)") {
                try client.verify(serverFinal: Self.bytes(message))
            }
        }
    }

    @Test func userNamesAreEscapedAndPreparedAndNoncesAreRandom() throws {
        let client = try SCRAMClient(hash: .sha256, username: "a=b,c", password: "pw", nonce: "n0nce")
        #expect(Self.text(client.clientFirst()) == "n,,n=a=3Db=2Cc,r=n0nce")
        // A no-break space is a space; a soft hyphen is nothing (SASLprep).
        let prepared = try SCRAMClient(hash: .sha256, username: "us\u{AD}er\u{A0}1", password: "pw", nonce: "n")
        #expect(Self.text(prepared.clientFirst()) == "n,,n=user 1,r=n")
        #expect(throws: SCRAMClient.Failure.unusableCredentials("password")) {
            try SCRAMClient(hash: .sha256, username: "user", password: "bad\u{7}password", nonce: "n")
        }
        #expect(throws: SCRAMClient.Failure.unusableCredentials("password")) {
            try SCRAMClient(hash: .sha256, username: "user", password: "", nonce: "n")
        }
        let first = Self.text(
            try SCRAMClient(hash: .sha256, username: "u", password: "p", nonce: SCRAMClient.randomNonce())
                .clientFirst())
        let second = Self.text(
            try SCRAMClient(hash: .sha256, username: "u", password: "p", nonce: SCRAMClient.randomNonce())
                .clientFirst())
        #expect(first != second)
        #expect(first.utf8.count == "n,,n=u,r=".utf8.count + 24)
    }

    @Test func base64DecodingIsStrict() {
        #expect(SASLPayload.decodeBase64("") == [])
        #expect(SASLPayload.decodeBase64("Zm9vYmFy") == Array("foobar".utf8))
        #expect(SASLPayload.decodeBase64("Zm9vYg==") == Array("foob".utf8))
        #expect(SASLPayload.decodeBase64("Zm9vYmE=") == Array("fooba".utf8))
        for bad in ["Zm9vYg", "Zm9vYh==", "Zm=vYg==", "Zm9v\nYg==", "Zm9vYg===", "Zm9vY*=="] {
            #expect(SASLPayload.decodeBase64(bad) == nil, "\(bad)")
        }
        let bytes = (0..<300).map { UInt8($0 % 256) }
        #expect(SASLPayload.decodeBase64(SASLPayload.base64(bytes)) == bytes)
    }

    @Test func serverChunksAreReassembled() {
        var assembler = SASLChunkAssembler()
        let payload = (0..<450).map { UInt8($0 % 251) }
        let encoded = SASLPayload.base64(payload)  // 600 characters: 400 + 200
        let chunks = SASLPayload.authenticateMessages(for: payload).compactMap(\.parameters.first)
        #expect(chunks.map(\.utf8.count) == [400, 200])
        #expect(assembler.add(chunks[0]) == .needMore)
        #expect(assembler.add(chunks[1]) == .complete(payload))
        // Exactly 400 characters end with `+`.
        let exact = Array(payload.prefix(300))
        let exactChunks = SASLPayload.authenticateMessages(for: exact).compactMap(\.parameters.first)
        #expect(exactChunks.map(\.utf8.count) == [400, 1])
        #expect(assembler.add(exactChunks[0]) == .needMore)
        #expect(assembler.add("+") == .complete(exact))
        #expect(assembler.add("+") == .complete([]))
        #expect(assembler.add(String(repeating: "A", count: 401)) == .malformed)
        #expect(assembler.add("not base64!") == .malformed)
        var endless = SASLChunkAssembler()
        var outcome = SASLChunkAssembler.Outcome.needMore
        for _ in 0..<30 where outcome == .needMore { outcome = endless.add(String(encoded.prefix(400))) }
        #expect(outcome == .malformed)
    }
}
