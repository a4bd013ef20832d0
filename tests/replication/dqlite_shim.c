/* Loads session-search into every SQLite connection of a process that
 * embeds a dqlite node (LD_PRELOAD=dqlite_shim.so SESSION_SEARCH_SO=...).
 *
 * dqlite runs SQL in connections it opens itself, on its own VFS, which
 * cannot load extensions (sqlite3_load_extension answers "Loadable
 * extensions are not supported"), and go-dqlite configures SQLite before
 * first use, which an automatic extension registered when the library is
 * loaded would pre-empt. So the shim registers the extension's entry point
 * as an automatic extension at the process's first sqlite3_open_v2, then
 * lets the real function open the connection.
 *
 * Build: cc -shared -fPIC -o dqlite_shim.so dqlite_shim.c -ldl -lsqlite3
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>

typedef int (*open_fn)(const char *, sqlite3 **, int, const char *);

int sqlite3_open_v2(const char *name, sqlite3 **db, int flags, const char *vfs) {
    static open_fn real;
    static int registered;
    if (!real) {
        real = (open_fn)dlsym(RTLD_NEXT, "sqlite3_open_v2");
    }
    const char *path = getenv("SESSION_SEARCH_SO");
    if (!registered && path) {
        registered = 1;
        void *library = dlopen(path, RTLD_NOW);
        void *entry = library ? dlsym(library, "sqlite3_extension_init") : NULL;
        if (!entry) {
            fprintf(stderr, "session-search shim: cannot load %s: %s\n", path, dlerror());
            exit(1);
        }
        sqlite3_auto_extension((void (*)(void))entry);
    }
    return real(name, db, flags, vfs);
}
