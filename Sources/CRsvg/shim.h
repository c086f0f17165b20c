// librsvg, loaded on demand with dlopen: the demo draws its bundled icons from masks that librsvg
// rendered ahead of time, so librsvg's code (6 MB resident once used) is only mapped when an SVG
// must actually be rendered (`--icon FILE`, an unusual scale). Icon files are read by the app
// (bounded, never blocking) and handed over as bytes: librsvg never opens a path itself. The declarations mirror
// <librsvg/rsvg.h> and <glib/gerror.h> (stable ABI since librsvg 2.46).
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>

typedef struct BadgeRsvgRectangle { double x, y, width, height; } BadgeRsvgRectangle;
typedef struct BadgeGError { uint32_t domain; int code; char *message; } BadgeGError;

typedef struct BadgeLibrsvg {
    void *(*new_from_data)(const uint8_t *data, size_t length, BadgeGError **error);
    int (*render_document)(void *handle, void *cairo, const BadgeRsvgRectangle *viewport, BadgeGError **error);
    void (*object_unref)(void *object);
    void (*error_free)(BadgeGError *error);
    /// The document's width and height in pixels at 96 dpi; 0 when it gives none (or only
    /// percentages). librsvg 2.52 and later; NULL with an older one.
    int (*intrinsic_size_in_pixels)(void *handle, double *width, double *height);
} BadgeLibrsvg;

/// Loads librsvg-2.so.2 and its entry points; returns 0 (see dlerror) when any is missing.
static inline int badge_librsvg_load(BadgeLibrsvg *library) {
    void *handle = dlopen("librsvg-2.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!handle) return 0;
    library->new_from_data = (void *(*)(const uint8_t *, size_t, BadgeGError **))dlsym(handle, "rsvg_handle_new_from_data");
    library->render_document = (int (*)(void *, void *, const BadgeRsvgRectangle *, BadgeGError **))dlsym(handle, "rsvg_handle_render_document");
    library->object_unref = (void (*)(void *))dlsym(handle, "g_object_unref");
    library->error_free = (void (*)(BadgeGError *))dlsym(handle, "g_error_free");
    library->intrinsic_size_in_pixels = (int (*)(void *, double *, double *))dlsym(handle, "rsvg_handle_get_intrinsic_size_in_pixels");
    return library->new_from_data && library->render_document
        && library->object_unref && library->error_free;
}

/// The last dlopen/dlsym error, or NULL.
static inline const char *badge_librsvg_error(void) { return dlerror(); }

#include <malloc.h>

/// Gives the pages of freed memory back to the system: a parsed document's tree is many small
/// blocks that glibc would otherwise keep resident after librsvg frees them.
static inline void badge_release_freed_memory(void) { malloc_trim(0); }
