package import Foundation
package import Kingfisher

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What `kf` tells a person when a source fails: what went wrong, in their terms (the source they typed, the HTTP
/// status, the file), and what to do about it; never a cache key, a processor identifier or a library type name.
///
/// ``KingfisherError``'s own descriptions stay as they are, precise for developers; this is only how `kf` says it.
package enum FailureMessage {
    /// The reason `source` (as the user typed it) failed with `error`, without the source's name: the caller writes
    /// `error: SOURCE: reason`.
    package static func reason(_ error: any Error, source: String) -> String {
        if let failure = error as? CommandFailure { return failure.description }
        guard let error = error as? KingfisherError else { return plain(error) }
        switch error {
        case .requestError(let reason): return request(reason)
        case .responseError(let reason): return response(reason, source: source)
        case .cacheError(let reason): return cache(reason)
        case .processorError(let reason): return processing(reason)
        case .imageSettingError(let reason): return imageSetting(reason, source: source)
        }
    }

    private static func request(_ reason: KingfisherError.RequestErrorReason) -> String {
        switch reason {
        case .invalidURL(let request):
            "\(request.url?.absoluteString ?? "the URL") cannot be downloaded: only http, https and s3://bucket/key "
                + "URLs are"
        case .objectStorageUnconfigured(_, let reason): "cannot reach the object store: \(reason)"
        case .emptyRequest: "no request was made for it"
        case .taskCancelled, .livePhotoTaskCancelled, .asyncTaskContextCancelled, .dataProviderCancelled:
            "stopped before it finished"
        }
    }

    private static func response(_ reason: KingfisherError.ResponseErrorReason, source: String) -> String {
        switch reason {
        case .invalidHTTPStatusCode(let response):
            let status = response.statusCode
            let name = HTTPURLResponse.localizedString(forStatusCode: status)
            let phrase = name.isEmpty ? "\(status)" : "\(status) \(name.capitalized)"
            return "the server answered \(phrase)" + statusAdvice(status)
        case .URLSessionError(let error):
            if let urlError = error as? URLError, urlError.code == .cancelled { return "the download was refused" }
            if let urlError = error as? URLError, urlError.code == .badServerResponse {
                return "the server sent no image (a 304 Not Modified nobody asked for)"
            }
            return TransportFailure(error).sentence(host: URL(string: source).map(hostAndPort) ?? "the server")
        case .responseTooLarge(_, let limit, let declared):
            let size = declared.map { " (\(megabytes(Int($0))))" } ?? ""
            return "the image is larger than the download limit of \(megabytes(limit))\(size)"
        case .requestTimedOut(let url, let timeout):
            return "\(hostAndPort(url)) did not answer within \(seconds(timeout))"
        case .tooManyRedirects(let urls, let limit):
            let chain = urls.map(\.absoluteString).joined(separator: " -> ")
            return urls.count > limit + 1
                ? "more than \(limit) redirects: \(chain)" : "the redirects go round in a loop: \(chain)"
        case .downloadDurationExceeded(let url, let limit):
            return "the download from \(hostAndPort(url)) took longer than \(seconds(limit)) and was stopped"
        case .objectStorageError(let url, let status, let code, let message):
            return objectStorage(code: code, status: status, message: message, url: url)
        case .invalidURLResponse: return "the answer was not an HTTP response"
        case .noURLResponse: return "the server closed the connection without answering"
        case .dataModifyingFailed, .cancelledByDelegate: return "the download was refused"
        }
    }

    /// An S3-compatible store's refusal, with what to check for the common ones.
    private static func objectStorage(code: String, status: Int, message: String, url: URL) -> String {
        switch code {
        case "NoSuchKey": return "the bucket has no object by that key (NoSuchKey)"
        case "NoSuchBucket": return "there is no bucket \(url.host(percentEncoded: false) ?? "") (NoSuchBucket)"
        case "AccessDenied": return "the object store denied access (AccessDenied): check the key's permissions"
        case "SignatureDoesNotMatch":
            return "the object store refused the request's signature (SignatureDoesNotMatch): check "
                + "AWS_SECRET_ACCESS_KEY (or the profile's secret)"
        case "InvalidAccessKeyId":
            return "the object store does not know the access key (InvalidAccessKeyId): check AWS_ACCESS_KEY_ID"
        case "SlowDown": return "the object store asks for fewer requests (SlowDown): try again later"
        default:
            return "the object store answered \(code) (\(status))" + (message.isEmpty ? "" : ": \(message)")
        }
    }

    private static func cache(_ reason: KingfisherError.CacheErrorReason) -> String {
        switch reason {
        case .imageNotExisting: "not in the cache"
        case .cannotCreateCacheFile(let url, _, _, let error):
            "cannot write to the cache in \(url.deletingLastPathComponent().path): \(plain(error))"
        case .cannotCreateDirectory(let path, let error):
            "cannot create the cache directory \(path): \(plain(error))"
        case .diskStorageIsNotReady(let url):
            "the cache directory \(url.path) does not exist and cannot be created"
        case .cannotLoadDataFromDisk(let url, let error):
            "cannot read the cache file \(url.path): \(plain(error))"
        case .cannotSerializeImage, .cannotConvertToData: "the result could not be encoded for the cache"
        case .invalidURLResource(let error, _, let url):
            "cannot read the details of the cache file \(url.path): \(plain(error))"
        case .cannotRemoveCacheFile(let url, let error):
            "cannot remove the cache file \(url.path): \(plain(error))"
        case .cannotSetCacheFileAttribute(let path, _, let error):
            "cannot set the dates of the cache file \(path): \(plain(error))"
        case .fileEnumeratorCreationFailed(let url): "cannot list the cache directory \(url.path)"
        case .invalidFileEnumeratorContent(let url): "cannot inspect the cache file \(url.path)"
        case .missingLivePhotoResourceOnDisk: "a Live Photo file is missing from the cache"
        }
    }

    private static func processing(_ reason: KingfisherError.ProcessorErrorReason) -> String {
        switch reason {
        case .processingFailed(let processor as DecodingFailedProcessor, _):
            return processing(processor.reason)
        case .processingFailed(let processor as ExplainedFailureProcessor, _):
            return "the image could not be processed: \(firstLine(of: processor.reason))"
        case .processingFailed:
            return "the image could not be processed with the flags given"
        case .emptyImageData:
            return "it is empty (0 bytes)"
        case .unsupportedImageFormat(.unknown):
            return "it is not an image (no image format recognised)"
        case .unsupportedImageFormat(let format):
            return "it is a \(format) image, which this libvips cannot read"
        case .imageDecodingFailed(_, let error) where error.isLibvipsUnavailable:
            return "libvips could not be loaded (\(error.message)): install it (Debian: libvips42)"
        case .imageDecodingFailed(let format, let error):
            return "the \(format) image is damaged or cut off (\(firstLine(of: error)))"
        case .pixelLimitExceeded(let width, let height, let limit):
            return "the image is \(width)x\(height) pixels, more than the limit of \(megapixels(limit))"
        case .frameLimitExceeded(let frames, let limit):
            return "the animation has \(frames) frames, more than the limit of \(limit)"
        case .imageEncodingFailed(let format, .none):
            return "this libvips cannot write \(format) images; choose another --format"
        case .imageEncodingFailed(let format, .some(let error)):
            return "the \(format) result could not be written (\(firstLine(of: error)))"
        case .invalidPixelBuffer:
            return reason.errorDescription
        case .timeLimitExceeded(let seconds):
            return "decoding or processing would take longer than its limit of \(Self.seconds(seconds)) and was stopped"
        }
    }

    private static func imageSetting(_ reason: KingfisherError.ImageSettingErrorReason, source: String) -> String {
        switch reason {
        case .dataProviderError(let provider, let error):
            if error is KingfisherError { return Self.reason(error, source: source) }
            guard let file = provider.contentURL, file.isFileURL else { return plain(error) }
            return fileProblem(error, file: file, source: source)
        case .alternativeSourcesExhausted(let errors):
            return errors.map { Self.reason($0.error, source: $0.source.url?.absoluteString ?? source) }
                .joined(separator: "; then ")
        case .emptySource: return "there is nothing to load"
        case .notCurrentSourceTask: return "replaced by a newer request"
        }
    }

    /// A file source that could not be read; a missing path that looks like a web address without its scheme
    /// (`127.0.0.1:8080/a.jpg`, `example.com/a.png`) gets the URL the user probably meant.
    private static func fileProblem(_ error: any Error, file: URL, source: String) -> String {
        let code = posixCode(of: error)
        switch code {
        case ENOENT:
            if let guess = webAddressGuess(source) { return "no such file; for a URL, give its scheme: \(guess)" }
            return "no such file"
        case EACCES: return "permission denied reading \(file.path)"
        case EISDIR: return "it is a directory, not an image file"
        default: return plain(error)
        }
    }

    /// `http://` + `text` when `text` starts with a host (a dotted name or an address, optionally with a port)
    /// followed by a path; `nil` for anything that reads as a plain file path.
    package static func webAddressGuess(_ text: String) -> String? {
        guard !text.hasPrefix("/"), !text.hasPrefix("."), !text.hasPrefix("~") else { return nil }
        let host = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init)
        guard let host, !host.isEmpty else { return nil }
        let parts = host.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 2 else { return nil }
        if parts.count == 2 {
            guard let port = Int(parts[1]), (1...65535).contains(port) else { return nil }
        }
        let name = parts[0]
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        let looksLikeHost =
            name == "localhost"
            || (labels.count >= 2 && labels.allSatisfy { !$0.isEmpty }
                && (parts.count == 2 || !Self.imageExtensions.contains(labels.last!.lowercased())))
        return looksLikeHost ? "http://\(text)" : nil
    }

    /// Extensions that make `photo.jpg` a file name rather than a host name.
    private static let imageExtensions: Set<String> = [
        "jpg", "jpeg", "png", "gif", "webp", "avif", "heic", "heif", "tif", "tiff", "bmp", "svg", "ico", "jxl",
    ]

    private static func posixCode(of error: any Error) -> Int32? {
        let nsError = error as NSError
        if nsError.domain == NSPOSIXErrorDomain { return Int32(nsError.code) }
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain
        {
            return Int32(underlying.code)
        }
        if nsError.domain == NSCocoaErrorDomain {
            switch CocoaError.Code(rawValue: nsError.code) {
            case .fileReadNoSuchFile, .fileNoSuchFile: return ENOENT
            case .fileReadNoPermission: return EACCES
            default: return nil
            }
        }
        return nil
    }

    /// libvips' first line about the failure (its later lines repeat it for each step) without the name of the
    /// libvips part that wrote it (`VipsJpeg: `, `jpegload_buffer: `), or the step's name.
    package static func firstLine(of error: VipsError) -> String {
        var line = Substring(error.message.split(separator: "\n").first ?? "")
        while let colon = line.firstIndex(of: ":"), line[line.index(after: colon)...].hasPrefix(" "),
            line[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" })
        {
            line = line[line.index(colon, offsetBy: 2)...]
        }
        return line.isEmpty ? error.operation : String(line)
    }

    private static func statusAdvice(_ status: Int) -> String {
        switch status {
        case 401, 403: " (it needs credentials or is not public)"
        case 404, 410: " (check the URL)"
        case 429: " (too many requests: try again later, or with a lower --concurrency)"
        case 500..<600: " (a problem at the server: try again later)"
        default: ""
        }
    }

    private static func hostAndPort(_ url: URL) -> String {
        guard let host = url.host else { return url.absoluteString }
        return url.port.map { "\(host):\($0)" } ?? host
    }

    /// An error that is not a ``KingfisherError`` as one plain line: the system's reason under a file error
    /// ("No such file or directory"), else its description.
    package static func plain(_ error: any Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError {
            return underlying.localizedDescription
        }
        if let described = (error as? any LocalizedError)?.errorDescription { return described }
        if nsError.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(nsError.code))) }
        return nsError.localizedDescription
    }

    package static func megabytes(_ bytes: Int) -> String {
        bytes % (1 << 20) == 0 ? "\(bytes >> 20) MB" : String(format: "%.1f MB", Double(bytes) / Double(1 << 20))
    }

    package static func megapixels(_ pixels: Int) -> String {
        pixels % 1_000_000 == 0 ? "\(pixels / 1_000_000) megapixels" : "\(pixels) pixels"
    }

    package static func seconds(_ value: TimeInterval) -> String {
        value == value.rounded() ? "\(Int(value)) s" : String(format: "%.1f s", value)
    }
}
