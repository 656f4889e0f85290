public import Foundation

/// The files of a Live Photo to load: usually two ``LivePhotoResource``s, the still image (HEIC) and the video
/// (MOV). ``KingfisherManager/retrieveLivePhoto(with:options:progressBlock:referenceTaskIdentifierChecker:)``
/// downloads and caches them and hands back their file URLs.
///
/// ```swift
/// let source = LivePhotoSource(urls: [heicURL, movURL])
/// let result = try await KingfisherManager.shared.retrieveLivePhoto(with: source)
/// print(result.fileURLs)  // [.../<hash>.heic, .../<hash>.mov]
/// ```
public struct LivePhotoSource: Sendable {
    /// The resources, in the order their file URLs are handed back.
    public let resources: [LivePhotoResource]

    /// A source of network resources; each file type is guessed from its URL's extension.
    public init(resources: [any Resource]) {
        self.init(resources.map { LivePhotoResource(resource: $0) })
    }

    /// A source downloading `urls`, each cached under its absolute string; file types guessed from the extensions.
    public init(urls: [URL]) {
        self.init(resources: urls.map { KF.ImageResource(downloadURL: $0) })
    }

    /// A source of the given resources.
    public init(_ resources: [LivePhotoResource]) {
        self.resources = resources
    }
}

/// One file of a Live Photo: where its bytes come from and what type of file it is.
///
/// The file type decides the extension of the cache file (Photos on Apple platforms needs `.heic` and `.mov`).
/// Left `nil`, it is guessed from the URL's extension (`heic`, `mov`, case-insensitive; anything else is
/// ``FileType/other(_:)`` with that extension); a resource whose URL has no extension is stored with the extension
/// its bytes show (an ISO base-media `ftyp` box of brand `heic` or `qt  `).
public struct LivePhotoResource: Sendable {
    /// The type of a Live Photo file.
    public enum FileType: Sendable, Equatable {
        /// A HEIF still image, stored as `.heic`.
        case heic
        /// A QuickTime video, stored as `.mov`.
        case mov
        /// Another type, stored with this extension; an empty one is decided from the downloaded bytes.
        case other(String)

        /// The cache file's extension for this type; empty for `.other("")`.
        var fileExtension: String {
            switch self {
            case .heic: "heic"
            case .mov: "mov"
            case .other(let pathExtension): pathExtension
            }
        }
    }

    /// Where the bytes come from: the network or a provider.
    public let dataSource: Source

    /// The file type, given or guessed.
    public let referenceFileType: FileType

    /// The key the file is cached under.
    var cacheKey: String { dataSource.cacheKey }

    /// A resource downloaded from `downloadURL`.
    /// - Parameters:
    ///   - cacheKey: the cache key; the URL's absolute string when `nil`.
    ///   - fileType: the file type; guessed from the URL when `nil`.
    public init(downloadURL: URL, cacheKey: String? = nil, fileType: FileType? = nil) {
        let resource = KF.ImageResource(downloadURL: downloadURL, cacheKey: cacheKey)
        self.init(resource: resource, fileType: fileType)
    }

    /// A resource downloaded as `resource` says; the file type guessed from its download URL when `nil`.
    /// A file URL is read by a ``LocalFileImageDataProvider`` (the downloader takes only `http` and `https`).
    public init(resource: any Resource, fileType: FileType? = nil) {
        dataSource = resource.downloadURL.isFileURL ? resource.convertToSource() : .network(resource)
        referenceFileType = fileType ?? FileType(guessingFrom: resource.downloadURL)
    }

    /// A resource from any source, a provider included; the file type guessed from the source's URL when `nil`
    /// (a provider without a ``ImageDataProvider/contentURL`` gives `.other("")`: decided from the bytes).
    public init(source: Source, fileType: FileType? = nil) {
        dataSource = source
        referenceFileType = fileType ?? source.url.map(FileType.init(guessingFrom:)) ?? .other("")
    }
}

extension LivePhotoResource.FileType {
    /// The type the URL's extension names.
    init(guessingFrom url: URL) {
        let pathExtension = url.pathExtension.lowercased()
        switch pathExtension {
        case "heic": self = .heic
        case "mov": self = .mov
        default: self = .other(pathExtension)
        }
    }

    /// The extension to store `data` with: this type's, or for `.other("")` the one the data's `ftyp` box names;
    /// `nil` when neither says.
    func determinedFileExtension(_ data: Data) -> String? {
        let known = fileExtension
        if !known.isEmpty { return known }
        return Self.fileExtension(sniffing: data)
    }

    /// `heic` or `mov` from an ISO base-media file's first box (`size`, `ftyp`, major brand), else `nil`.
    static func fileExtension(sniffing data: Data) -> String? {
        let header = [UInt8](data.prefix(12))
        guard header.count == 12, header[4..<8].elementsEqual("ftyp".utf8) else { return nil }
        let brand = header[8..<12]
        if brand.elementsEqual("heic".utf8) { return "heic" }
        if brand.elementsEqual("qt  ".utf8) { return "mov" }
        return nil
    }
}
