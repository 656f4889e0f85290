public import Foundation

/// One frame of a video, as PNG data: a local file or an http(s) URL, at a time in seconds. Ours runs Debian's
/// `ffmpeg` in a child process (Kingfisher uses AVFoundation's `AVAssetImageGenerator`, which Linux has not).
///
/// ```swift
/// let poster = AVAssetImageDataProvider(assetURL: videoURL, seconds: 2.5)
/// let result = try await KingfisherManager.shared.retrieveImage(with: .provider(poster))
/// ```
///
/// The frame is the one shown at `seconds` (decoded from the preceding key frame, so exact to the frame). The
/// cache key is Kingfisher's: the URL's ``Resource/cacheKey`` and the time in seconds (at Kingfisher's timescale of
/// 1/600 s), `"<url key>_1.5"`. Failures are ``AVAssetImageDataProvider/AVAssetImageDataProviderError``s as in
/// Kingfisher (cancelled; not an image) or, with the precise reason, ``AVAssetImageDataProvider/ProviderError``s;
/// the manager wraps them in ``KingfisherError/ImageSettingErrorReason/dataProviderError(provider:error:)``.
public struct AVAssetImageDataProvider: ImageDataProvider {
    /// Why a frame could not be had.
    public enum ProviderError: LocalizedError, Sendable, Equatable, CustomStringConvertible {
        /// No `ffmpeg` executable at ``AVAssetImageDataProvider/ffmpegURL`` (install Debian's `ffmpeg`).
        case ffmpegMissing(URL?)
        /// The time is before the start or not a number.
        case invalidTime(TimeInterval)
        /// The video has no frame at that time: it ends earlier (or has no video stream).
        case noFrame(seconds: TimeInterval)
        /// ffmpeg failed: not a video, an unreachable URL, a corrupt file. `message` is ffmpeg's last error line.
        case ffmpegFailed(status: Int32, message: String)
        /// ffmpeg did not finish within ``AVAssetImageDataProvider/timeout``.
        case timedOut(TimeInterval)

        public var description: String {
            switch self {
            case .ffmpegMissing(let url):
                "ffmpeg was not found\(url.map { " at \($0.path)" } ?? " on PATH") (apt-get install ffmpeg)"
            case .invalidTime(let seconds): "\(seconds) is not a time in the video"
            case .noFrame(let seconds): "the video has no frame at \(seconds) s (it is shorter, or has no video)"
            case .ffmpegFailed(let status, let message): "ffmpeg failed (status \(status)): \(message)"
            case .timedOut(let seconds): "ffmpeg did not finish within \(seconds) s"
            }
        }

        public var errorDescription: String? { description }
    }

    /// Kingfisher's errors of this provider.
    public enum AVAssetImageDataProviderError: Error, Sendable {
        /// The calling task was cancelled; ffmpeg was stopped.
        case userCancelled
        /// ffmpeg's output is not an image. Kingfisher passes the `CGImage` it got; there is none here, so `nil`.
        case invalidImage(_ image: KFCrossPlatformImage?)
    }

    /// The video: a file URL or an http(s) URL.
    public let assetURL: URL
    /// The frame's time from the start, in seconds.
    public let seconds: TimeInterval
    /// The longest ffmpeg may take. 30 s by default.
    public var timeout: TimeInterval = 30
    /// The ffmpeg executable; the first `ffmpeg` on `PATH` by default.
    public var ffmpegURL: URL? = ChildProcess.find("ffmpeg")

    public let cacheKey: String

    /// The frame of the video at `assetURL` shown at `seconds`.
    public init(assetURL: URL, seconds: TimeInterval) {
        self.assetURL = assetURL
        self.seconds = seconds
        // Kingfisher's key: the URL's key, then the time's seconds after rounding to a timescale of 600 (CMTime's).
        let time = seconds.isFinite ? (seconds * 600).rounded() / 600 : seconds
        cacheKey = "\(assetURL.cacheKey)_\(time)"
    }

    public var contentURL: URL? { assetURL }

    /// The frame, encoded as PNG. Cancelling the calling task stops ffmpeg and throws
    /// ``AVAssetImageDataProviderError/userCancelled``.
    public func data() async throws -> Data {
        guard seconds.isFinite, seconds >= 0 else { throw ProviderError.invalidTime(seconds) }
        guard let ffmpegURL, FileManager.default.isExecutableFile(atPath: ffmpegURL.path) else {
            throw ProviderError.ffmpegMissing(ffmpegURL)
        }
        let input = assetURL.isFileURL ? assetURL.path : assetURL.absoluteString
        // -ss before -i seeks to the key frame before the time and decodes up to it; one frame out, as PNG.
        let arguments = [
            "-nostdin", "-hide_banner", "-v", "error", "-ss", String(format: "%.6f", seconds), "-i", input,
            "-map", "0:v:0", "-frames:v", "1", "-f", "image2pipe", "-c:v", "png", "-",
        ]
        let outcome: ChildProcess.Outcome
        do {
            outcome = try await ChildProcess(executable: ffmpegURL, arguments: arguments, timeout: timeout).run()
        } catch is CancellationError {
            throw AVAssetImageDataProviderError.userCancelled
        }
        if outcome.timedOut { throw ProviderError.timedOut(timeout) }
        guard outcome.status == 0 else {
            let lastLine = outcome.standardError.split(separator: "\n").last.map(String.init) ?? ""
            throw ProviderError.ffmpegFailed(status: outcome.status, message: lastLine)
        }
        guard !outcome.standardOutput.isEmpty else { throw ProviderError.noFrame(seconds: seconds) }
        guard outcome.standardOutput.kf.imageFormat == .PNG else {
            throw AVAssetImageDataProviderError.invalidImage(nil)
        }
        return outcome.standardOutput
    }
}
