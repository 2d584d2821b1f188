import Hummingbird

/// What the fake Udacity server does with one request: answer it, or hold it (a server that never
/// answers in time).
enum FakeUdacityReply {
    case answer(status: HTTPResponse.Status, body: [UInt8], headers: HTTPFields)
    case hold(Duration)

    /// A JSON answer, behind the `)]}'` security prefix when `prefixed`.
    static func json(
        _ status: HTTPResponse.Status, prefixed: Bool, _ json: String, headers: HTTPFields = [:]
    ) -> FakeUdacityReply {
        let bytes = (prefixed ? Array(")]}'\n".utf8) : []) + Array(json.utf8)
        return .answer(status: status, body: bytes, headers: headers)
    }

    /// An error answer, `{"code": code, "error": message}` (or under `statusKey` instead of `code`).
    static func failure(
        _ status: HTTPResponse.Status, code: Int, _ message: String, statusKey: String = "code"
    ) -> FakeUdacityReply {
        json(status, prefixed: false, #"{"\#(statusKey)": \#(code), "error": \#(quotedJSON(message))}"#)
    }

    /// An HTML page instead of JSON (a proxy or captive portal in the way).
    static var htmlPage: FakeUdacityReply {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        return .answer(
            status: .ok,
            body: Array("<!doctype html><html><body><h1>Welcome to the hotel Wi-Fi</h1></body></html>".utf8),
            headers: headers)
    }

    /// A pin as the API lists it.
    static func json(of location: FakeUdacityServer.Location) -> String {
        #"{"objectId": \#(quotedJSON(location.objectId)), "uniqueKey": \#(quotedJSON(location.uniqueKey)), "#
            + #""firstName": \#(quotedJSON(location.firstName)), "#
            + #""lastName": \#(quotedJSON(location.lastName)), "#
            + #""mapString": \#(quotedJSON(location.mapString)), "#
            + #""mediaURL": \#(quotedJSON(location.mediaURL)), "#
            + #""latitude": \#(location.latitude), "longitude": \#(location.longitude), "#
            + #""createdAt": "\#(FakeTimestamp.format(location.createdAt))", "#
            + #""updatedAt": "\#(FakeTimestamp.format(location.updatedAt))"}"#
    }

    /// Shared data as it really comes: missing fields, links without a scheme, numbers as
    /// strings or as junk, records without coordinates, other date precisions.
    static let messyRecords: [(uniqueKey: String, json: String)] = [
        (
            "messy-1",
            #"{"objectId": "messy-strings", "uniqueKey": "messy-1", "firstName": "Ana", "#
                + #""mapString": "Lima, Peru", "#
                + #""mediaURL": "example.com/ana", "latitude": "-12.0464", "longitude": " -77.0428", "#
                + #""createdAt": "2015-02-25T01:10:38Z", "updatedAt": "2015-02-26T01:10:38Z"}"#
        ),
        (
            "messy-2",
            #"{"objectId": "messy-nocoords", "uniqueKey": "messy-2", "#
                + #""firstName": "No", "lastName": "Coordinates", "#
                + #""mapString": "Nowhere", "mediaURL": "https://example.org", "#
                + #""createdAt": "2015-02-25T01:10:38.103Z", "updatedAt": "2015-02-25T01:10:38.103Z"}"#
        ),
        (
            "messy-3",
            #"{"objectId": "messy-null", "uniqueKey": "messy-3", "#
                + #""firstName": "Null", "lastName": "Latitude", "#
                + #""latitude": null, "longitude": 2.35}"#
        ),
        (
            "messy-4",
            #"{"objectId": "messy-range", "uniqueKey": "messy-4", "#
                + #""firstName": "Out", "lastName": "Of Range", "#
                + #""latitude": 123.4, "longitude": 10.0}"#
        ),
        (
            "12345",
            #"{"objectId": "messy-junk", "uniqueKey": 12345, "firstName": "", "latitude": 48.8566, "#
                + #""longitude": 2.3522, "mediaURL": "javascript:alert(1)", "#
                + #""updatedAt": "2015-05-10T16:48:30.760460Z", "extra": {"nested": [1, 2, 3]}}"#
        ),
        (
            "messy-6",
            #"{"objectId": "messy-text", "uniqueKey": "messy-6", "firstName": "Bad", "lastName": "Numbers", "#
                + #""latitude": "north", "longitude": "east"}"#
        ),
    ]
}
