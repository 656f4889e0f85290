#if canImport(Glibc)
    import Glibc
#endif

/// The process's open-file limit, which bounds how many connections `kf serve` can hold.
enum OpenFileLimit {
    /// Raises the soft limit to the hard one (at most 1,048,576), as servers do, and returns the soft limit now
    /// in force.
    static func raised() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        let wanted = min(limit.rlim_max, 1 << 20)
        if limit.rlim_cur < wanted {
            var raised = limit
            raised.rlim_cur = wanted
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }

    /// The default connection bound: 10,000, leaving 512 descriptors for cache files, origins and logs when the
    /// limit is lower.
    static func defaultConnections(_ descriptors: Int) -> Int {
        max(16, min(10_000, descriptors - 512))
    }
}
