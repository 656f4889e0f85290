import Foundation
import Testing

@testable import Kingfisher

/// Response headers read as RFC 9110/9111 say, bad ones included: dates, directives, validators, freshness and age.
@Suite struct HTTPCacheRecordTests {
    private let sent = Date(timeIntervalSince1970: 1_700_000_000)

    private func record(_ headers: [String: String], delay: TimeInterval = 0) -> HTTPCacheRecord? {
        HTTPCacheRecord(
            headers: headers, requestTime: sent, responseTime: sent + delay, contentTag: "tag")
    }

    private func date(_ offset: TimeInterval) -> String { HTTPDate.format(sent + offset) }

    @Test func httpDatesInAllThreeFormsAndNothingElse() throws {
        let expected = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == expected)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == expected)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == expected)
        #expect(HTTPDate.format(expected) == "Sun, 06 Nov 1994 08:49:37 GMT")
        for bad in [
            "0", "", "-1", "tomorrow", "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:49:37 GMT",
            "Sun, 06 Nov 1994 08:49:37 PST", "Sun, 06 Nov 1994", "06 Nov",
        ] {
            #expect(HTTPDate.parse(bad) == nil, "\(bad)")
        }
        for offset in [0.0, 86_399, 1e9, -1e8] {
            let date = Date(timeIntervalSince1970: offset)
            #expect(HTTPDate.parse(HTTPDate.format(date)) == date)
        }
    }

    @Test func directivesInAnyCaseWithQuotedValuesAndInvalidOnes() {
        let control = CacheControl(#"Max-Age=60, NO-CACHE="Set-Cookie, X", immutable, stale-while-revalidate=30"#)
        #expect(control.maxAge == .seconds(60))
        #expect(control.noCache && control.immutable && !control.noStore)
        #expect(control.staleWhileRevalidate == 30)
        #expect(CacheControl("max-age=-5").maxAge == .invalid)
        #expect(CacheControl("max-age=abc").maxAge == .invalid)
        #expect(CacheControl("max-age=").maxAge == .invalid)
        #expect(CacheControl("max-age=60, max-age=120").maxAge == .invalid)
        #expect(CacheControl("max-age=60, max-age=60").maxAge == .seconds(60))
        #expect(CacheControl(#"max-age="60""#).maxAge == .seconds(60))
        #expect(CacheControl("max-age=99999999999999999999").maxAge == .seconds(Int(Int32.max)))
        #expect(CacheControl("stale-if-error=-1").staleIfError == nil)
        #expect(CacheControl(nil) == CacheControl())
        #expect(CacheControl(",,, ,=, no-store").noStore)
    }

    @Test func noStoreMeansNoRecord() {
        #expect(record(["Cache-Control": "max-age=60, no-store"]) == nil)
        #expect(record(["cache-control": "NO-STORE"]) == nil)
        #expect(record(["Cache-Control": "max-age=60"]) != nil)
    }

    @Test func maxAgeComesBeforeExpiresAndExpiresBeforeTheHeuristic() throws {
        // An Expires in the past with a max-age in the future: max-age wins
        let both = try #require(record(["Cache-Control": "max-age=600", "Expires": date(-3600), "Date": date(0)]))
        #expect(both.freshnessLifetime(heuristicLimit: 86_400) == 600)
        let expires = try #require(record(["Expires": date(300), "Date": date(0)]))
        #expect(expires.freshnessLifetime(heuristicLimit: 86_400) == 300)
        // Last-Modified 10 days before Date: a tenth of that, within the limit
        let heuristic = try #require(record(["Last-Modified": date(-864_000), "Date": date(0)]))
        #expect(heuristic.freshnessLifetime(heuristicLimit: 86_400) == 86_400)
        #expect(heuristic.freshnessLifetime(heuristicLimit: 3600) == 3600)
        let recent = try #require(record(["Last-Modified": date(-1000), "Date": date(0)]))
        #expect(recent.freshnessLifetime(heuristicLimit: 86_400) == 100)
        #expect(try #require(record([:])).freshnessLifetime(heuristicLimit: 86_400) == 0)
    }

    @Test func invalidOrContradictoryHeadersNeverMakeAnEntryFresh() throws {
        let cases: [[String: String]] = [
            ["Cache-Control": "max-age=-1"],
            ["Cache-Control": "max-age=60, max-age=3600"],
            ["Expires": "0"],
            ["Expires": "garbage", "Last-Modified": date(-864_000)],
            ["Expires": date(-10), "Date": date(0)],
            ["Cache-Control": "max-age=3600, no-cache"],
        ]
        for headers in cases {
            let stored = try #require(record(headers))
            #expect(
                stored.state(at: sent + 1, heuristicLimit: 86_400) == .stale(whileRevalidating: false, ifError: false),
                "\(headers)")
        }
    }

    @Test func ageCountsTheAgeHeaderTheDateAndTheTimeSpentHere() throws {
        // Age 100 and a request that took 2 s: 102 s old on arrival
        let aged = try #require(record(["Cache-Control": "max-age=200", "Age": "100"], delay: 2))
        #expect(aged.currentAge(at: sent + 2) == 102)
        #expect(aged.state(at: sent + 2 + 97, heuristicLimit: 0) == .fresh)
        #expect(aged.state(at: sent + 2 + 99, heuristicLimit: 0) != .fresh)
        // A Date 50 s before arrival makes it 50 s old, more than Age says
        let dated = try #require(record(["Cache-Control": "max-age=60", "Age": "10", "Date": date(-50)]))
        #expect(dated.currentAge(at: sent) == 50)
        // An Age that is not a number counts as none
        #expect(try #require(record(["Age": "-5"])).age == nil)
        #expect(try #require(record(["Age": "ten"])).age == nil)
    }

    @Test func staleWindowsAndWhatOverridesThem() throws {
        let windows = try #require(
            record(["Cache-Control": "max-age=10, stale-while-revalidate=20, stale-if-error=100"]))
        #expect(windows.state(at: sent + 5, heuristicLimit: 0) == .fresh)
        #expect(windows.state(at: sent + 15, heuristicLimit: 0) == .stale(whileRevalidating: true, ifError: true))
        #expect(windows.state(at: sent + 50, heuristicLimit: 0) == .stale(whileRevalidating: false, ifError: true))
        #expect(windows.state(at: sent + 200, heuristicLimit: 0) == .stale(whileRevalidating: false, ifError: false))
        let strict = try #require(record(["Cache-Control": "max-age=10, stale-while-revalidate=20, must-revalidate"]))
        #expect(strict.state(at: sent + 15, heuristicLimit: 0) == .stale(whileRevalidating: false, ifError: false))
    }

    @Test func validatorsAndTheConditionalRequestTheyMake() throws {
        let both = try #require(record(["ETag": #""abc""#, "Last-Modified": "Sun, 06 Nov 1994 08:49:37 GMT"]))
        #expect(both.hasValidator)
        // The tag alone when there is one (a date beside it could say 304 for a body replaced within its second)
        #expect(both.conditionalHeaders == ["If-None-Match": #""abc""#])
        let dated = try #require(record(["Last-Modified": "Sun, 06 Nov 1994 08:49:37 GMT"]))
        #expect(dated.conditionalHeaders == ["If-Modified-Since": "Sun, 06 Nov 1994 08:49:37 GMT"])
        #expect(try #require(record(["etag": #"W/"v1""#])).entityTag == #"W/"v1""#)
        // Two ETags (joined by a comma), one without quotes, or a Last-Modified that is no date: no validator
        for headers in [["ETag": #""a", "b""#], ["ETag": "abc"], ["Last-Modified": "yesterday"]] {
            let stored = try #require(record(headers))
            #expect(!stored.hasValidator, "\(headers)")
            #expect(stored.conditionalHeaders.isEmpty)
        }
    }

    @Test func a304RefreshesTheFieldsItSendsAndAgesFromNow() throws {
        var stored = try #require(
            record(["ETag": #""v1""#, "Cache-Control": "max-age=60", "Date": date(0), "Age": "30"]))
        stored.variants = ["", "resize"]
        #expect(stored.state(at: sent + 120, heuristicLimit: 0) != .fresh)
        let later = sent + 120
        let refreshed = try #require(
            stored.refreshed(by: ["Date": HTTPDate.format(later)], requestTime: later, responseTime: later))
        #expect(refreshed.state(at: later + 10, heuristicLimit: 0) == .fresh)
        #expect(refreshed.entityTag == #""v1""#)
        #expect(refreshed.age == nil)
        #expect(refreshed.variants == ["", "resize"])
        let longer = try #require(
            stored.refreshed(by: ["Cache-Control": "max-age=3600"], requestTime: later, responseTime: later))
        #expect(longer.freshnessLifetime(heuristicLimit: 0) == 3600)
        #expect(stored.refreshed(by: ["Cache-Control": "no-store"], requestTime: later, responseTime: later) == nil)
    }
}
