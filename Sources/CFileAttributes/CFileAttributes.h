// File calls Glibc's Swift module leaves out: extended attributes (the disk cache keeps each file's checksum in
// one) and unnamed files (O_TMPFILE, a macro Swift cannot import), through which cache files are written.
#ifndef CFILEATTRIBUTES_H
#define CFILEATTRIBUTES_H

#include <sys/types.h>
#include <sys/xattr.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

/// Opens a new file without a name in `directory`, for writing; -1 with errno set when it cannot (EOPNOTSUPP:
/// the file system or the system has no unnamed files).
static inline int cfile_open_unnamed(const char *directory, mode_t mode) {
#if defined(O_TMPFILE)
    return open(directory, O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
#elif defined(__O_TMPFILE)  // glibc names O_TMPFILE only with _GNU_SOURCE
    return open(directory, __O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
#else
    (void)directory;
    (void)mode;
    errno = EOPNOTSUPP;
    return -1;
#endif
}

/// Gives the unnamed file open as `descriptor` the name `path`: 0, or -1 with errno set (EEXIST when a file has
/// that name already). Through /proc/self/fd, which needs no privilege (AT_EMPTY_PATH would).
static inline int cfile_link_unnamed(int descriptor, const char *path) {
    char source[64];
    snprintf(source, sizeof source, "/proc/self/fd/%d", descriptor);
    return linkat(AT_FDCWD, source, AT_FDCWD, path, AT_SYMLINK_FOLLOW);
}

#endif
