// librsvg, loaded on demand with dlopen: the demo draws its bundled icons from masks that librsvg
// rendered ahead of time, so librsvg's code (6 MB resident once used) is only mapped when an SVG
// must actually be rendered (`--icon FILE`, an unusual scale). The declarations mirror
// <librsvg/rsvg.h> and <glib/gerror.h> (stable ABI since librsvg 2.46).
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>

typedef struct BadgeRsvgRectangle { double x, y, width, height; } BadgeRsvgRectangle;
typedef struct BadgeGError { uint32_t domain; int code; char *message; } BadgeGError;

typedef struct BadgeLibrsvg {
    void *(*new_from_data)(const uint8_t *data, size_t length, BadgeGError **error);
    void *(*new_from_file)(const char *path, BadgeGError **error);
    int (*render_document)(void *handle, void *cairo, const BadgeRsvgRectangle *viewport, BadgeGError **error);
    void (*object_unref)(void *object);
    void (*error_free)(BadgeGError *error);
} BadgeLibrsvg;

/// Loads librsvg-2.so.2 and its entry points; returns 0 (see dlerror) when any is missing.
static inline int badge_librsvg_load(BadgeLibrsvg *library) {
    void *handle = dlopen("librsvg-2.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!handle) return 0;
    library->new_from_data = (void *(*)(const uint8_t *, size_t, BadgeGError **))dlsym(handle, "rsvg_handle_new_from_data");
    library->new_from_file = (void *(*)(const char *, BadgeGError **))dlsym(handle, "rsvg_handle_new_from_file");
    library->render_document = (int (*)(void *, void *, const BadgeRsvgRectangle *, BadgeGError **))dlsym(handle, "rsvg_handle_render_document");
    library->object_unref = (void (*)(void *))dlsym(handle, "g_object_unref");
    library->error_free = (void (*)(BadgeGError *))dlsym(handle, "g_error_free");
    return library->new_from_data && library->new_from_file && library->render_document
        && library->object_unref && library->error_free;
}

/// The last dlopen/dlsym error, or NULL.
static inline const char *badge_librsvg_error(void) { return dlerror(); }
