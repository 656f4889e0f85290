public import Foundation

extension KingfisherError {
    /// Reading or writing the memory or disk cache failed. Codes 3001...3012 are Kingfisher's; 3101... are ours.
    public enum CacheErrorReason: Sendable {
        /// The cache directory could not be listed. Code 3001.
        case fileEnumeratorCreationFailed(url: URL)
        /// A file in the cache directory could not be inspected. Code 3002.
        case invalidFileEnumeratorContent(url: URL)
        /// A cache file's attributes (size, dates) could not be read. Code 3003.
        case invalidURLResource(error: any Error, key: String, url: URL)
        /// A cache file exists but reading it failed. Code 3004.
        case cannotLoadDataFromDisk(url: URL, error: any Error)
        /// The cache directory could not be created. Code 3005.
        case cannotCreateDirectory(path: String, error: any Error)
        /// No image is cached under the key (for example with `onlyFromCache`). Code 3006.
        case imageNotExisting(key: String)
        /// A value could not be converted to data for the disk cache. Code 3007.
        case cannotConvertToData(object: any Sendable, error: any Error)
        /// The cache serializer returned no data for the image. Code 3008.
        case cannotSerializeImage(image: KFCrossPlatformImage?, original: Data?, serializer: any CacheSerializer)
        /// Writing the cache file failed: a full disk, a read-only or vanished directory. Nothing else in the cache
        /// was touched. Code 3009.
        case cannotCreateCacheFile(fileURL: URL, key: String, data: Data, error: any Error)
        /// Setting a cache file's dates (which hold its expiration) failed. Code 3010.
        case cannotSetCacheFileAttribute(filePath: String, attributes: [String: Date], error: any Error)
        /// The disk storage's directory does not exist and could not be created. Code 3011.
        case diskStorageIsNotReady(cacheURL: URL)
        /// A Live Photo file that was just stored (or found) is not on disk under its key and type: for example
        /// bytes whose type could not be told stored without an extension. Code 3012.
        case missingLivePhotoResourceOnDisk(_ resource: LivePhotoResource)
        /// Removing a cache file failed for a reason other than it being gone already. Code 3101 (ours).
        case cannotRemoveCacheFile(fileURL: URL, error: any Error)
    }
}

extension KingfisherError.CacheErrorReason {
    public var errorCode: Int {
        switch self {
        case .fileEnumeratorCreationFailed: 3001
        case .invalidFileEnumeratorContent: 3002
        case .invalidURLResource: 3003
        case .cannotLoadDataFromDisk: 3004
        case .cannotCreateDirectory: 3005
        case .imageNotExisting: 3006
        case .cannotConvertToData: 3007
        case .cannotSerializeImage: 3008
        case .cannotCreateCacheFile: 3009
        case .cannotSetCacheFileAttribute: 3010
        case .diskStorageIsNotReady: 3011
        case .missingLivePhotoResourceOnDisk: 3012
        case .cannotRemoveCacheFile: 3101
        }
    }

    public var errorDescription: String {
        switch self {
        case .fileEnumeratorCreationFailed(let url):
            return "Cannot list the cache directory at \(url.path)."
        case .invalidFileEnumeratorContent(let url):
            return "Cannot inspect the cache file at \(url.path)."
        case .invalidURLResource(let error, let key, let url):
            return "Cannot read the attributes of the cache file \(url.path) for key \"\(key)\": \(error)"
        case .cannotLoadDataFromDisk(let url, let error):
            return "Cannot read the cache file \(url.path): \(error)"
        case .cannotCreateDirectory(let path, let error):
            return "Cannot create the cache directory \(path): \(error)"
        case .imageNotExisting(let key):
            return "No image is cached for key \"\(key)\"."
        case .cannotConvertToData(let object, let error):
            return "Cannot convert \(type(of: object)) to data for the disk cache: \(error)"
        case .cannotSerializeImage(_, let original, let serializer):
            let source = original.map { "original data of \($0.count) bytes" } ?? "no original data"
            return "The cache serializer \(type(of: serializer)) produced no data for the image (\(source))."
        case .cannotCreateCacheFile(let fileURL, let key, let data, let error):
            return "Cannot write \(data.count) bytes for key \"\(key)\" to the cache file \(fileURL.path): \(error)"
        case .cannotSetCacheFileAttribute(let filePath, let attributes, let error):
            let names = attributes.keys.sorted().joined(separator: ", ")
            return "Cannot set \(names) of the cache file \(filePath): \(error)"
        case .diskStorageIsNotReady(let cacheURL):
            return "The disk cache directory \(cacheURL.path) does not exist and cannot be created."
        case .missingLivePhotoResourceOnDisk(let resource):
            let type = resource.referenceFileType.fileExtension
            return "The Live Photo file for key \"\(resource.cacheKey)\" (type \(type.isEmpty ? "unknown" : type)) is "
                + "not in the disk cache."
        case .cannotRemoveCacheFile(let fileURL, let error):
            return "Cannot remove the cache file \(fileURL.path): \(error)"
        }
    }
}
