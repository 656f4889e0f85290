import ArgumentParser
import Foundation
import KfCommandKit
import Kingfisher

/// `kf demo`: the whole pipeline on generated images from an in-process loopback server, twice.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the pipeline on generated sample images, offline, and draw a contact sheet.",
        discussion: """
            Starts an HTTP server on 127.0.0.1 inside this process, serving a photo-like JPEG, a transparent PNG \
            and an animated GIF it draws itself. Each goes through several processor chains (download, decode, \
            process, cache), the results are written to DIR/results and DIR/contact-sheet.png, and then the same \
            run is repeated with the memory cache emptied, to show the disk cache at work.
            """)

    @Option(help: ArgumentHelp("Where the results go.", valueName: "DIR"))
    var output = "kf-demo"

    /// One job's outcome in one round.
    private struct Outcome {
        let job: Int
        let image: KFCrossPlatformImage?
        let cacheType: CacheType
        let milliseconds: Double
        let file: URL?
        let error: String?
    }

    @OptionGroup(title: "Logging")
    var logging: LoggingOptions

    func run() async throws {
        let directory = URL(fileURLWithPath: output, isDirectory: true)
        let results = directory.appendingPathComponent("results", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: results, withIntermediateDirectories: true)
        } catch {
            throw CommandFailure("cannot create \(results.path): \(FailureMessage.plain(error))")
        }
        Console.out("Drawing the sample images...")
        let samples = try DemoImage.all()
        var answers: [String: DemoOrigin.Answer] = [:]
        for (index, sample) in samples.enumerated() {
            // Fresh for an hour, with a validator: the second round is served from the cache without a request.
            let headers = [
                ("Content-Type", sample.contentType), ("Cache-Control", "max-age=3600"), ("ETag", "\"demo-\(index)\""),
            ]
            answers[sample.path] = DemoOrigin.Answer(headers: headers, body: sample.data)
        }
        let server = try await DemoOrigin.start(serving: answers)
        Console.out("Serving them at \(server.baseURL.absoluteString) (loopback, this process only).")

        var cacheOptions = CacheOptions()
        cacheOptions.cacheDir = directory.appendingPathComponent("cache").path
        let cache = try cacheOptions.makeCache()
        try? cache.diskStorage.removeAll()  // a cold start every time
        let session = CommandSession(cache: cache, concurrency: 8, logger: logging.bootstrap())
        let jobs = DemoJob.all(samples: samples)

        Console.out("\nRound 1: \(jobs.count) results from \(samples.count) images, nothing cached yet")
        let (first, firstSeconds) = await round(jobs, server: server, session: session, results: results)
        let firstRequests = server.totalHits

        cache.clearMemoryCache()
        Console.out("\nRound 2: the same again, memory cache emptied, so everything comes from the disk cache")
        let (second, secondSeconds) = await round(jobs, server: server, session: session, results: nil)
        let secondRequests = server.totalHits - firstRequests

        await session.shutdown()
        await server.shutdown()

        let sheetURL = directory.appendingPathComponent("contact-sheet.png")
        try drawSheet(jobs: jobs, first: first, second: second, to: sheetURL)

        let failures = (first + second).filter { $0.error != nil }.count
        let fromDisk = second.filter { $0.cacheType == .disk }.count
        Console.out("")
        Console.out(
            "Round 1: \(jobs.count) results in \(ms(firstSeconds)) ms, \(firstRequests) HTTP requests "
                + "(one per image: requests for the same URL are coalesced)")
        Console.out(
            "Round 2: \(fromDisk) of \(jobs.count) served from the disk cache in \(ms(secondSeconds)) ms, "
                + "\(secondRequests) HTTP requests: \(ProgressReporter.format(firstSeconds / max(secondSeconds, 1e-6), digits: 1))x faster"
        )
        Console.out("Wrote \(sheetURL.path) and \(jobs.count) files in \(results.path)")
        if failures > 0 { throw ExitCode.failure }
    }

    /// Retrieves every job at once; returns the outcomes in job order and the wall time.
    private func round(_ jobs: [DemoJob], server: DemoOrigin, session: CommandSession, results: URL?) async -> (
        [Outcome], Double
    ) {
        let reporter = ProgressReporter(total: jobs.count, verb: "loading")
        let ticker = reporter.startTicking()
        let start = ContinuousClock.now
        var outcomes = await withTaskGroup(of: Outcome.self) { group in
            for (index, job) in jobs.enumerated() {
                group.addTask {
                    await retrieve(index, job, url: server.url(job.path), session: session, results: results)
                }
            }
            var outcomes: [Outcome] = []
            for await outcome in group {
                outcomes.append(outcome)
                let job = jobs[outcome.job]
                let name = "\(job.sample): \(job.caption)"
                if let error = outcome.error {
                    reporter.record(.failed, stderr: "  error: \(name): \(error)")
                } else {
                    let file = outcome.file.map { " -> results/\($0.lastPathComponent)" } ?? ""
                    let size = outcome.image.map { "\($0.pixelWidth)x\($0.pixelHeight)" } ?? ""
                    let origin =
                        outcome.cacheType == .none ? "processed" : "from \(FetchRunner.name(of: outcome.cacheType))"
                    reporter.record(
                        .completed,
                        stdout:
                            "  \(name)\(file)  (\(size), \(origin), \(ProgressReporter.format(outcome.milliseconds, digits: 0)) ms)"
                    )
                }
            }
            return outcomes
        }
        let elapsed = ContinuousClock.now - start
        ticker?.cancel()
        reporter.finish()
        outcomes.sort { $0.job < $1.job }
        return (outcomes, elapsed.seconds)
    }

    private func retrieve(_ index: Int, _ job: DemoJob, url: URL, session: CommandSession, results: URL?) async
        -> Outcome
    {
        let start = ContinuousClock.now
        let options: KingfisherOptionsInfo = [.processor(job.processor), .waitForCache]
        do {
            let result = try await session.manager.retrieveImage(with: .network(url), options: options)
            var file: URL?
            if let results {
                let bytes =
                    session.cache.cacheFileURLIfOnDisk(
                        forKey: url.absoluteString, processorIdentifier: job.processor.identifier
                    ).flatMap { try? Data(contentsOf: $0) }
                    ?? DefaultCacheSerializer.default.data(with: result.image, original: result.data())
                if let bytes {
                    let ext = bytes.kf.imageFormat.fileExtension ?? "img"
                    let stem = (job.sample as NSString).deletingPathExtension
                    let target = results.appendingPathComponent(String(format: "%02d-%@.%@", index + 1, stem, ext))
                    try? bytes.write(to: target, options: .atomic)
                    file = target
                }
            }
            return Outcome(
                job: index, image: result.image, cacheType: result.cacheType,
                milliseconds: FetchRunner.milliseconds(since: start), file: file, error: nil)
        } catch {
            let reason = FailureMessage.reason(error, source: url.absoluteString)
            return Outcome(
                job: index, image: nil, cacheType: .none, milliseconds: FetchRunner.milliseconds(since: start),
                file: nil, error: reason)
        }
    }

    private func drawSheet(jobs: [DemoJob], first: [Outcome], second: [Outcome], to url: URL) throws {
        var cells: [ContactSheet.Cell] = []
        for (index, job) in jobs.enumerated() {
            guard let image = first[index].image else { continue }
            let timing =
                "\(image.pixelWidth)x\(image.pixelHeight) · \(ms(first[index].milliseconds / 1000)) ms, then "
                + "\(FetchRunner.name(of: second[index].cacheType)) \(ms(second[index].milliseconds / 1000)) ms"
            cells.append(ContactSheet.Cell(image: image, lines: [job.sample, job.caption, timing]))
        }
        let sheet = ContactSheet(
            title: "kf demo: Kingfisher \(KingfisherVersion.string) on libvips \(ImageEngine.libvipsVersion)",
            cells: cells)
        guard let png = try sheet.render().kf.pngRepresentation() else {
            throw CommandFailure("the contact sheet could not be encoded")
        }
        do { try png.write(to: url, options: .atomic) } catch {
            throw CommandFailure("cannot write \(url.path): \(FailureMessage.plain(error))")
        }
    }

    private func ms(_ seconds: Double) -> String {
        ProgressReporter.format(seconds * 1000, digits: 0)
    }
}
