import Foundation
import Kingfisher
import KingfisherTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `maximumDownloadDuration`: a download ends by its total deadline however steadily its bytes trickle in.
@Suite(.timeLimit(.minutes(1)))
struct ImageDownloaderDeadlineTests {
    static let oneSecond = ImageDownloader.Configuration(maximumDownloadDuration: 1)

    @Test func tricklingBodyEndsAtTheTotalDeadline() async throws {
        try await withDownloader(configuration: Self.oneSecond) { server, downloader in
            // 200 bytes, one every 150 ms: 30 s in all, each byte well within the 15 s read timeout.
            server.route("/trickle.png", .trickle(Data(Fixtures.png().prefix(200)), every: .milliseconds(150)))
            let url = server.url("/trickle.png")
            let started = ContinuousClock.now
            let error = await downloader.result(url).error
            let elapsed = ContinuousClock.now - started
            guard case .responseError(reason: .downloadDurationExceeded(let failedURL, let limit)) = error else {
                Issue.record("expected downloadDurationExceeded, got \(String(describing: error)) after \(elapsed)")
                return
            }
            #expect(failedURL == url)
            #expect(limit == 1)
            #expect(error?.errorCode == 2104)
            #expect(elapsed >= .milliseconds(900))
            // The error says the deadline ended it; this only checks that it ended before the body would have (on
            // a loaded machine the 1 s deadline was once reported after 17.9 s).
            #expect(elapsed < .seconds(30))
            let description = error?.description ?? ""
            #expect(description.contains(url.absoluteString))
            #expect(description.contains("maximumDownloadDuration"))
        }
    }

    @Test func ordinaryDownloadsFinishWithinTheDeadline() async throws {
        // A deadline ordinary downloads never come near, even when the whole suite's CPU-bound tests hold both
        // cores of a CI machine (1 s was once missed there): the point is that the deadline's race does not
        // disturb a download that finishes.
        let generous = ImageDownloader.Configuration(maximumDownloadDuration: 20)
        try await withDownloader(configuration: generous) { server, downloader in
            server.route("/a.png", .ok(Fixtures.png(), contentType: "image/png"))
            for _ in 0..<3 {
                let result = await downloader.result(server.url("/a.png"))
                #expect(result.error == nil, "\(String(describing: result.error))")
            }
        }
    }

    @Test func deadlineCoversTheWaitForTheHeadAndRedirects() async throws {
        // Three seconds: a loopback redirect is followed well within them even on a loaded machine (with one second,
        // a busy machine once hit the deadline while still at /start), and the silent target then takes the rest.
        let threeSeconds = ImageDownloader.Configuration(maximumDownloadDuration: 3)
        try await withDownloader(configuration: threeSeconds) { server, downloader in
            downloader.downloadTimeout = 60
            server.route("/start", .redirect(to: "/silent.png"))
            server.route("/silent.png", .init(neverRespond: true))
            let started = ContinuousClock.now
            let error = await downloader.result(server.url("/start")).error
            guard case .responseError(reason: .downloadDurationExceeded(let url, 3)) = error else {
                Issue.record("expected downloadDurationExceeded, got \(String(describing: error))")
                return
            }
            // The redirect was followed, and the error names the URL the download was waiting on.
            #expect(server.hits("/silent.png") == 1)
            #expect(url == server.url("/silent.png"))
            #expect(ContinuousClock.now - started >= .seconds(2.9))
            #expect(ContinuousClock.now - started < .seconds(50))  // far below the 60 s head timeout
        }
    }

    @Test func eachRetryHasItsOwnDeadline() async throws {
        // Twelve seconds: well under the trickle's 30 s, and room for the retry's whole download on a loaded
        // machine (with one second, and once with five beside two busy processes, the retry was stopped too).
        let twelveSeconds = ImageDownloader.Configuration(maximumDownloadDuration: 12)
        try await withDownloader(configuration: twelveSeconds) { server, downloader in
            let slow = TestHTTPServer.Route.trickle(Data(Fixtures.png().prefix(200)), every: .milliseconds(150))
            server.route("/retried.png", sequence: [slow, .ok(Fixtures.png(), contentType: "image/png")])
            let retry = DelayRetryStrategy(maxRetryCount: 1, retryInterval: .seconds(0))
            let result = await downloader.result(server.url("/retried.png"), options: [.retryStrategy(retry)])
            #expect(result.error == nil, "\(String(describing: result.error))")
            #expect(server.hits("/retried.png") == 2)
        }
    }

    @Test func theDefaultIsOneMinute() {
        #expect(ImageDownloader.Configuration().maximumDownloadDuration == 60)
    }
}
