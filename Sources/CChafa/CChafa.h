// The libchafa calls Kingfisher's terminal view makes, plus wrappers for what Swift cannot call directly.
//
// libchafa renders pixels into a grid of terminal cells and prints the grid as text with escape sequences
// (Unicode symbols with colours, sixel or kitty graphics). Its objects are reference counted; each `_new`,
// `_detect` or `_copy` result is unreffed by its one Swift owner.
#ifndef CCHAFA_H
#define CCHAFA_H

#include <chafa.h>
#include <stddef.h>

/// Frees `string` and returns its bytes (NUL-terminated), which the caller frees with `cchafa_free`; `length_out`
/// gets their count. `g_string_free` is a macro in newer GLib, which Swift cannot call.
static inline char *cchafa_string_take(GString *string, size_t *length_out) {
    *length_out = string->len;
    return g_string_free(string, FALSE);
}

static inline void cchafa_free(void *memory) { g_free(memory); }

/// The terminal described by `envp` (a NULL-terminated `NAME=value` list), with every sequence it lacks taken
/// from libchafa's fallback, so a forced sixel or kitty mode prints even where detection found no support.
static inline ChafaTermInfo *cchafa_term_info_new(char **envp) {
    ChafaTermDb *database = chafa_term_db_get_default();
    ChafaTermInfo *info = chafa_term_db_detect(database, envp);
    ChafaTermInfo *fallback = chafa_term_db_get_fallback_info(database);
    chafa_term_info_supplement(info, fallback);
    chafa_term_info_unref(fallback);
    return info;
}

#endif
