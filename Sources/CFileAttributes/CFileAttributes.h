// Extended file attributes (the disk cache keeps each file's digest in one). Glibc's Swift module does not
// include <sys/xattr.h>, so it is declared to Swift through this target.
#ifndef CFILEATTRIBUTES_H
#define CFILEATTRIBUTES_H

#include <sys/types.h>
#include <sys/xattr.h>

#endif
