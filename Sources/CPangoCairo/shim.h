// Pango (with GLib), loaded with dlopen the first time text is measured or drawn: its ~18 shared
// libraries (Pango, HarfBuzz, GLib, GObject, GIO, FriBidi, libthai, …) are then mapped after the
// window is on the screen instead of before it. The declarations mirror <pango/pangocairo.h> and
// <glib-object.h> (a stable ABI since Pango 1.8); nothing is linked.
#include <dlfcn.h>
#include <stdint.h>

/// PANGO_SCALE: Pango units per device unit.
#define BADGE_PANGO_SCALE 1024
/// PangoWeight values.
enum { BADGE_PANGO_WEIGHT_NORMAL = 400, BADGE_PANGO_WEIGHT_MEDIUM = 500, BADGE_PANGO_WEIGHT_SEMIBOLD = 600,
       BADGE_PANGO_WEIGHT_BOLD = 700 };

/// PangoRectangle, in Pango units.
typedef struct BadgePangoRectangle { int x, y, width, height; } BadgePangoRectangle;

typedef struct BadgePango {
    void *(*cairo_font_map_get_default)(void);
    void *(*font_map_create_context)(void *font_map);
    void (*cairo_context_set_font_options)(void *context, const void *cairo_font_options);
    void (*cairo_context_set_resolution)(void *context, double dpi);
    void (*cairo_show_layout)(void *cairo, void *layout);
    void *(*layout_new)(void *context);
    void (*layout_set_font_description)(void *layout, const void *description);
    void (*layout_set_single_paragraph_mode)(void *layout, int setting);
    void (*layout_set_text)(void *layout, const char *text, int length);
    void (*layout_get_extents)(void *layout, BadgePangoRectangle *ink, BadgePangoRectangle *logical);
    int (*layout_get_unknown_glyphs_count)(void *layout);
    void *(*font_description_new)(void);
    void (*font_description_free)(void *description);
    void (*font_description_set_family)(void *description, const char *family);
    void (*font_description_set_absolute_size)(void *description, double size);
    void (*font_description_set_weight)(void *description, int weight);
    void (*object_unref)(void *object);
    void *(*language_from_string)(const char *language);
    void (*context_set_language)(void *context, void *language);
} BadgePango;

/// Loads libpangocairo-1.0.so.0 (and with it Pango and GLib) and its entry points; returns 0 (see
/// dlerror) when the library or any entry point is missing.
static inline int badge_pango_load(BadgePango *pango) {
    void *handle = dlopen("libpangocairo-1.0.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!handle) return 0;
#define BADGE_PANGO_SYMBOL(field, name) \
    *(void **)(&pango->field) = dlsym(handle, #name); \
    if (!pango->field) return 0
    BADGE_PANGO_SYMBOL(cairo_font_map_get_default, pango_cairo_font_map_get_default);
    BADGE_PANGO_SYMBOL(font_map_create_context, pango_font_map_create_context);
    BADGE_PANGO_SYMBOL(cairo_context_set_font_options, pango_cairo_context_set_font_options);
    BADGE_PANGO_SYMBOL(cairo_context_set_resolution, pango_cairo_context_set_resolution);
    BADGE_PANGO_SYMBOL(cairo_show_layout, pango_cairo_show_layout);
    BADGE_PANGO_SYMBOL(layout_new, pango_layout_new);
    BADGE_PANGO_SYMBOL(layout_set_font_description, pango_layout_set_font_description);
    BADGE_PANGO_SYMBOL(layout_set_single_paragraph_mode, pango_layout_set_single_paragraph_mode);
    BADGE_PANGO_SYMBOL(layout_set_text, pango_layout_set_text);
    BADGE_PANGO_SYMBOL(layout_get_extents, pango_layout_get_extents);
    BADGE_PANGO_SYMBOL(layout_get_unknown_glyphs_count, pango_layout_get_unknown_glyphs_count);
    BADGE_PANGO_SYMBOL(font_description_new, pango_font_description_new);
    BADGE_PANGO_SYMBOL(font_description_free, pango_font_description_free);
    BADGE_PANGO_SYMBOL(font_description_set_family, pango_font_description_set_family);
    BADGE_PANGO_SYMBOL(font_description_set_absolute_size, pango_font_description_set_absolute_size);
    BADGE_PANGO_SYMBOL(font_description_set_weight, pango_font_description_set_weight);
    BADGE_PANGO_SYMBOL(object_unref, g_object_unref);
    BADGE_PANGO_SYMBOL(language_from_string, pango_language_from_string);
    BADGE_PANGO_SYMBOL(context_set_language, pango_context_set_language);
#undef BADGE_PANGO_SYMBOL
    return 1;
}

/// The last dlopen/dlsym error, or NULL.
static inline const char *badge_pango_error(void) { return dlerror(); }


// Text warm-up: loading Pango's libraries (~18) and fontconfig's first FcInit (its configuration
// and caches) take several milliseconds that the first shaped text waits for. A short-lived
// thread does both while the main thread connects to the X server and maps its window. dlopen and
// FcInit are thread-safe, and the thread touches nothing else; badge_pango_load later finds the
// library already loaded. Started once per process; a failure only loses the head start.
#include <pthread.h>

static void *badge_text_warm_up_main(void *unused) {
    (void)unused;
    void *pango = dlopen("libpangocairo-1.0.so.0", RTLD_NOW | RTLD_LOCAL);
    void *fontconfig = dlopen("libfontconfig.so.1", RTLD_NOW | RTLD_LOCAL);
    if (fontconfig) {
        int (*init)(void) = (int (*)(void))dlsym(fontconfig, "FcInit");
        if (init) init();
    }
    (void)pango;  /* kept loaded: the main thread opens it again */
    return NULL;
}

static void badge_text_warm_up_start(void) {
    pthread_attr_t attributes;
    if (pthread_attr_init(&attributes) != 0) return;
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    pthread_t thread;
    (void)pthread_create(&thread, &attributes, badge_text_warm_up_main, NULL);
    pthread_attr_destroy(&attributes);
}

/// Starts the warm-up thread, once per process.
static inline void badge_text_warm_up(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, badge_text_warm_up_start);
}
