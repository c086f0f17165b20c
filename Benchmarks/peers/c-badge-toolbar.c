// badge-demo's two-button badge toolbar written in bare C: XCB for the window and events, cairo
// (its XCB surface, drawing straight to the window) for the pixels, no toolkit. The baseline the
// benchmark compares badge-demo with: a bell and an envelope button, each with a red count badge;
// left click adds one, right click takes one away (not below 0), and each change bounces the
// badge for 200 ms at 60 Hz on a timerfd that is armed only while a badge moves (idle otherwise).
// Exits 0 on WM_DELETE_WINDOW or Escape.
//
// Build: cc -O2 -Wall -Wextra -o /tmp/c-badge-toolbar Benchmarks/peers/c-badge-toolbar.c $(pkg-config --cflags --libs xcb cairo) -lm
// (cairo's XCB backend is in libcairo itself; cairo-xcb.pc adds no libraries.)
// Usage: c-badge-toolbar [--count bell=N] [--count mail=N]
//
// Geometry (pixels, as the GTK and Tk peers): window 110×60, background #F5F5F4; buttons 44×44 at
// (8,8) and (58,8), 6 apart; each icon in the 24×24 square at the button's centre; the badge a pill
// 18 high (wider for more digits) centred on the icon's top-right corner when one digit wide, its
// left edge fixed as the text grows (but kept inside the window), with a 2 px ring in the
// background colour.
#include <cairo-xcb.h>
#include <cairo.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include <xcb/xcb.h>

enum { WINDOW_WIDTH = 110, WINDOW_HEIGHT = 60, BUTTON_SIZE = 44, ICON_SIZE = 24, BADGE_HEIGHT = 18, RING = 2 };
#define BOUNCE_SECONDS 0.2
#define BOUNCE_PEAK 1.3
#define FRAME_NANOSECONDS 16666667L
#define KEYSYM_ESCAPE 0xff1bu

static const double background[3] = {0xF5 / 255.0, 0xF5 / 255.0, 0xF4 / 255.0};
static const double badge_red[3] = {0xE5 / 255.0, 0x39 / 255.0, 0x35 / 255.0};  /* BadgeKit's, Tk's and GTK's peers' red */
static const double icon_grey[3] = {0x3C / 255.0, 0x3C / 255.0, 0x3C / 255.0};

enum icon { ICON_BELL, ICON_MAIL };

struct button {
    const char *name;
    enum icon icon;
    int x, y;           // top-left of the 44×44 button
    int count;
    int bouncing;
    double bounce_start; // CLOCK_MONOTONIC seconds
};

static struct button buttons[2] = {
    {"bell", ICON_BELL, 8, 8, 3, 0, 0},
    {"mail", ICON_MAIL, 58, 8, 12, 0, 0},
};

static xcb_connection_t *connection;
static int timer_fd = -1;
static int timer_armed;

static void fail(const char *message) {
    fprintf(stderr, "c-badge-toolbar: %s\n", message);
    exit(1);
}

static void fail_x(const char *what, const xcb_generic_error_t *error) {
    fprintf(stderr, "c-badge-toolbar: %s failed (X error %u, request %u.%u, resource 0x%x)\n", what,
            error->error_code, error->major_code, error->minor_code, error->resource_id);
    exit(1);
}

static void check(xcb_void_cookie_t cookie, const char *what) {
    xcb_generic_error_t *error = xcb_request_check(connection, cookie);
    if (error) fail_x(what, error);
}

static void check_connection(void) {
    if (xcb_connection_has_error(connection)) fail("the X connection broke");
}

static void usage(FILE *to) {
    fputs("usage: c-badge-toolbar [--count bell=N] [--count mail=N]\n", to);
}

static double now_seconds(void) {
    struct timespec t;
    if (clock_gettime(CLOCK_MONOTONIC, &t) != 0) fail("clock_gettime(CLOCK_MONOTONIC) failed");
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

// "name=N", N a decimal count 0...INT_MAX.
static int parse_count(const char *argument) {
    const char *equals = strchr(argument, '=');
    if (!equals) return 0;
    struct button *target = NULL;
    for (int i = 0; i < 2; i++) {
        size_t length = strlen(buttons[i].name);
        if ((size_t)(equals - argument) == length && strncmp(argument, buttons[i].name, length) == 0) target = &buttons[i];
    }
    const char *digits = equals + 1;
    if (!target || *digits < '0' || *digits > '9') return 0;
    errno = 0;
    char *end;
    long value = strtol(digits, &end, 10);
    if (errno != 0 || *end != '\0' || value > INT_MAX) return 0;
    target->count = (int)value;
    return 1;
}

// ---- Animation ----

static void arm_timer(int on) {
    if (on == timer_armed) return;
    struct itimerspec spec = {{0, 0}, {0, 0}};
    if (on) spec.it_value.tv_nsec = spec.it_interval.tv_nsec = FRAME_NANOSECONDS;
    if (timerfd_settime(timer_fd, 0, &spec, NULL) != 0) fail("timerfd_settime failed");
    timer_armed = on;
}

// The bounce's progress 0...1 eased out (fast start, gentle end), mapped onto a hump 1 → 1.3 → 1.
static double eased(double t) { return 1 - (1 - t) * (1 - t); }

static double badge_scale(const struct button *b, double now) {
    if (!b->bouncing) return 1;
    double t = (now - b->bounce_start) / BOUNCE_SECONDS;
    if (t >= 1) return 1;
    if (t < 0) t = 0;
    return 1 + (BOUNCE_PEAK - 1) * sin(M_PI * eased(t));
}

// Starts a bounce; one already past its peak restarts from the rising point of the same scale,
// so a quick second click does not make the badge jump.
static void bounce(struct button *b, double now) {
    if (b->bouncing) {
        double t = (now - b->bounce_start) / BOUNCE_SECONDS;
        if (t < 1) {
            double u = eased(t);
            if (u <= 0.5) return; // still rising: keep going
            double rising = 1 - sqrt(u);  // eased(rising) == 1 - u: the same height on the way up
            b->bounce_start = now - rising * BOUNCE_SECONDS;
            return;
        }
    }
    b->bouncing = 1;
    b->bounce_start = now;
    arm_timer(1);
}

// Ends finished bounces; disarms the timer when none is left.
static void advance_animations(double now) {
    int any = 0;
    for (int i = 0; i < 2; i++) {
        if (buttons[i].bouncing && now - buttons[i].bounce_start >= BOUNCE_SECONDS) buttons[i].bouncing = 0;
        any |= buttons[i].bouncing;
    }
    arm_timer(any);
}

// ---- Drawing ----

static void set_colour(cairo_t *cr, const double rgb[3]) { cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]); }

static void draw_icon(cairo_t *cr, enum icon icon, double x, double y) {
    cairo_save(cr);
    cairo_translate(cr, x, y);
    set_colour(cr, icon_grey);
    cairo_set_line_width(cr, 1.6);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
    if (icon == ICON_BELL) {
        cairo_move_to(cr, 4.5, 17.5);
        cairo_curve_to(cr, 6, 16, 6.5, 14.5, 6.5, 11);
        cairo_curve_to(cr, 6.5, 7, 9, 4.5, 12, 4.5);
        cairo_curve_to(cr, 15, 4.5, 17.5, 7, 17.5, 11);
        cairo_curve_to(cr, 17.5, 14.5, 18, 16, 19.5, 17.5);
        cairo_close_path(cr);
        cairo_stroke(cr);
        cairo_arc(cr, 12, 19, 2.2, 0, M_PI); // clapper
        cairo_stroke(cr);
        cairo_move_to(cr, 12, 2.5);
        cairo_line_to(cr, 12, 4.5);
        cairo_stroke(cr);
    } else {
        cairo_rectangle(cr, 3.5, 6.5, 17, 12);
        cairo_stroke(cr);
        cairo_move_to(cr, 3.5, 6.5);
        cairo_line_to(cr, 12, 13);
        cairo_line_to(cr, 20.5, 6.5);
        cairo_stroke(cr);
    }
    cairo_restore(cr);
}

static void pill(cairo_t *cr, double left, double top, double width, double height) {
    double r = height / 2;
    cairo_new_sub_path(cr);
    cairo_arc(cr, left + width - r, top + r, r, -M_PI / 2, M_PI / 2);
    cairo_arc(cr, left + r, top + r, r, M_PI / 2, 3 * M_PI / 2);
    cairo_close_path(cr);
}

static void draw_badge(cairo_t *cr, const struct button *b, double now) {
    if (b->count <= 0) return;
    char label[16];
    if (b->count > 99) snprintf(label, sizeof label, "99+");
    else snprintf(label, sizeof label, "%d", b->count);
    cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
    cairo_set_font_size(cr, 12); // 9 pt at 96 dpi, as the GTK peer's badge font
    cairo_text_extents_t text;
    cairo_text_extents(cr, label, &text);
    double width = fmax(BADGE_HEIGHT, ceil(text.x_advance) + 8);
    // One digit wide, the badge is centred on the icon's top-right corner.
    double icon_right = b->x + (BUTTON_SIZE + ICON_SIZE) / 2.0, icon_top = b->y + (BUTTON_SIZE - ICON_SIZE) / 2.0;
    double left = icon_right - BADGE_HEIGHT / 2.0, top = icon_top - BADGE_HEIGHT / 2.0;
    // Wider ones grow to the right, but not past the toolbar's right edge ("99+" on the mail button).
    if (left + width + RING > WINDOW_WIDTH) left = WINDOW_WIDTH - RING - width;
    double cx = left + width / 2, cy = top + BADGE_HEIGHT / 2.0;
    double scale = badge_scale(b, now);

    cairo_save(cr);
    cairo_translate(cr, cx, cy);
    cairo_scale(cr, scale, scale);
    cairo_translate(cr, -cx, -cy);
    set_colour(cr, background);
    pill(cr, left - RING, top - RING, width + 2 * RING, BADGE_HEIGHT + 2 * RING);
    cairo_fill(cr);
    set_colour(cr, badge_red);
    pill(cr, left, top, width, BADGE_HEIGHT);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_move_to(cr, cx - (text.x_bearing + text.width / 2), cy - (text.y_bearing + text.height / 2));
    cairo_show_text(cr, label);
    cairo_restore(cr);
}

// Draws the whole window into a group (one pixmap) and copies it over in one go: no flicker.
static void paint(cairo_t *cr, cairo_surface_t *surface) {
    double now = now_seconds();
    cairo_push_group(cr);
    set_colour(cr, background);
    cairo_paint(cr);
    for (int i = 0; i < 2; i++)
        draw_icon(cr, buttons[i].icon, buttons[i].x + (BUTTON_SIZE - ICON_SIZE) / 2.0, buttons[i].y + (BUTTON_SIZE - ICON_SIZE) / 2.0);
    for (int i = 0; i < 2; i++) draw_badge(cr, &buttons[i], now);
    cairo_pop_group_to_source(cr);
    cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE);
    cairo_paint(cr);
    cairo_set_operator(cr, CAIRO_OPERATOR_OVER);
    cairo_surface_flush(surface);
    if (cairo_status(cr) != CAIRO_STATUS_SUCCESS) {
        fprintf(stderr, "c-badge-toolbar: drawing failed: %s\n", cairo_status_to_string(cairo_status(cr)));
        exit(1);
    }
    if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) {
        fprintf(stderr, "c-badge-toolbar: window surface: %s\n", cairo_status_to_string(cairo_surface_status(surface)));
        exit(1);
    }
    if (xcb_flush(connection) <= 0) fail("xcb_flush failed: the X connection broke");
}

// ---- X ----

static xcb_atom_t atom_reply(xcb_intern_atom_cookie_t cookie, const char *name) {
    xcb_generic_error_t *error = NULL;
    xcb_intern_atom_reply_t *reply = xcb_intern_atom_reply(connection, cookie, &error);
    if (!reply) {
        if (error) fail_x(name, error);
        fail("InternAtom: no reply (the X connection broke)");
    }
    xcb_atom_t atom = reply->atom;
    free(reply);
    return atom;
}

static struct button *button_at(int x, int y) {
    for (int i = 0; i < 2; i++)
        if (x >= buttons[i].x && x < buttons[i].x + BUTTON_SIZE && y >= buttons[i].y && y < buttons[i].y + BUTTON_SIZE)
            return &buttons[i];
    return NULL;
}

// The core keyboard mapping, fetched on the first key press (no round trip at start-up).
static xcb_get_keyboard_mapping_reply_t *keymap;

static uint32_t keysym_of(xcb_keycode_t keycode) {
    const xcb_setup_t *setup = xcb_get_setup(connection);
    if (!keymap) {
        xcb_generic_error_t *error = NULL;
        keymap = xcb_get_keyboard_mapping_reply(
            connection,
            xcb_get_keyboard_mapping(connection, setup->min_keycode, (uint8_t)(setup->max_keycode - setup->min_keycode + 1)),
            &error);
        if (!keymap) {
            if (error) fail_x("GetKeyboardMapping", error);
            fail("GetKeyboardMapping: no reply (the X connection broke)");
        }
    }
    if (keycode < setup->min_keycode || keycode > setup->max_keycode || keymap->keysyms_per_keycode == 0) return 0;
    int n = xcb_get_keyboard_mapping_keysyms_length(keymap);
    int index = (keycode - setup->min_keycode) * keymap->keysyms_per_keycode;
    return index < n ? xcb_get_keyboard_mapping_keysyms(keymap)[index] : 0;
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(argv[i], "--count") == 0 && i + 1 < argc && parse_count(argv[i + 1])) {
            i++;
            continue;
        }
        if (strcmp(argv[i], "--count") == 0)
            fprintf(stderr, "c-badge-toolbar: --count wants bell=N or mail=N (N a whole number >= 0), not '%s'\n",
                    i + 1 < argc ? argv[i + 1] : "nothing");
        else
            fprintf(stderr, "c-badge-toolbar: unknown argument '%s'\n", argv[i]);
        usage(stderr);
        return 2;
    }

    int screen_number = 0;
    connection = xcb_connect(NULL, &screen_number);
    if (xcb_connection_has_error(connection)) {
        const char *display = getenv("DISPLAY");
        fprintf(stderr, "c-badge-toolbar: cannot open display %s\n", display && *display ? display : "(DISPLAY is not set)");
        return 1;
    }
    const xcb_setup_t *setup = xcb_get_setup(connection);
    xcb_screen_iterator_t screens = xcb_setup_roots_iterator(setup);
    for (int i = 0; i < screen_number && screens.rem; i++) xcb_screen_next(&screens);
    if (!screens.rem || !screens.data) fail("the display has no such screen");
    xcb_screen_t *screen = screens.data;
    xcb_visualtype_t *visual = NULL;
    for (xcb_depth_iterator_t d = xcb_screen_allowed_depths_iterator(screen); d.rem && !visual; xcb_depth_next(&d))
        for (xcb_visualtype_iterator_t v = xcb_depth_visuals_iterator(d.data); v.rem; xcb_visualtype_next(&v))
            if (v.data->visual_id == screen->root_visual) {
                visual = v.data;
                break;
            }
    if (!visual) fail("the root visual is not in the screen's visual list");

    timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (timer_fd < 0) fail("timerfd_create failed");

    // Requests first, replies after: the atoms and every check below cost one round trip in all.
    xcb_window_t window = xcb_generate_id(connection);
    uint32_t values[] = {
        XCB_BACK_PIXMAP_NONE, // no background: the server never clears what we drew (no flicker)
        XCB_EVENT_MASK_EXPOSURE | XCB_EVENT_MASK_STRUCTURE_NOTIFY | XCB_EVENT_MASK_BUTTON_PRESS |
            XCB_EVENT_MASK_BUTTON_RELEASE | XCB_EVENT_MASK_KEY_PRESS,
    };
    xcb_void_cookie_t created = xcb_create_window_checked(
        connection, XCB_COPY_FROM_PARENT, window, screen->root, 0, 0, WINDOW_WIDTH, WINDOW_HEIGHT, 0,
        XCB_WINDOW_CLASS_INPUT_OUTPUT, screen->root_visual, XCB_CW_BACK_PIXMAP | XCB_CW_EVENT_MASK, values);
    const char *atom_names[] = {"WM_PROTOCOLS", "WM_DELETE_WINDOW", "_NET_WM_NAME", "UTF8_STRING"};
    xcb_intern_atom_cookie_t atom_cookies[4];
    for (int i = 0; i < 4; i++)
        atom_cookies[i] = xcb_intern_atom(connection, 0, (uint16_t)strlen(atom_names[i]), atom_names[i]);
    xcb_atom_t atoms[4];
    for (int i = 0; i < 4; i++) atoms[i] = atom_reply(atom_cookies[i], atom_names[i]);
    xcb_atom_t wm_protocols = atoms[0], wm_delete_window = atoms[1], net_wm_name = atoms[2], utf8_string = atoms[3];
    check(created, "CreateWindow");

    static const char wm_class[] = "c-badge-toolbar\0c-badge-toolbar"; // instance and class
    static const char title[] = "Badges";
    // WM_NORMAL_HINTS: minimum size (PMinSize) the toolbar's own size.
    uint32_t size_hints[18] = {0};
    size_hints[0] = 1u << 4;
    size_hints[5] = WINDOW_WIDTH;
    size_hints[6] = WINDOW_HEIGHT;
    xcb_void_cookie_t properties[6] = {
        xcb_change_property_checked(connection, XCB_PROP_MODE_REPLACE, window, XCB_ATOM_WM_CLASS, XCB_ATOM_STRING, 8,
                                    sizeof wm_class, wm_class),
        xcb_change_property_checked(connection, XCB_PROP_MODE_REPLACE, window, XCB_ATOM_WM_NAME, XCB_ATOM_STRING, 8,
                                    sizeof title - 1, title),
        xcb_change_property_checked(connection, XCB_PROP_MODE_REPLACE, window, net_wm_name, utf8_string, 8,
                                    sizeof title - 1, title),
        xcb_change_property_checked(connection, XCB_PROP_MODE_REPLACE, window, wm_protocols, XCB_ATOM_ATOM, 32, 1,
                                    &wm_delete_window),
        xcb_change_property_checked(connection, XCB_PROP_MODE_REPLACE, window, XCB_ATOM_WM_NORMAL_HINTS,
                                    XCB_ATOM_WM_SIZE_HINTS, 32, 18, size_hints),
        xcb_map_window_checked(connection, window),
    };
    const char *property_names[6] = {"ChangeProperty WM_CLASS", "ChangeProperty WM_NAME", "ChangeProperty _NET_WM_NAME",
                                     "ChangeProperty WM_PROTOCOLS", "ChangeProperty WM_NORMAL_HINTS", "MapWindow"};
    for (int i = 0; i < 6; i++) check(properties[i], property_names[i]);

    int width = WINDOW_WIDTH, height = WINDOW_HEIGHT;
    cairo_surface_t *surface = cairo_xcb_surface_create(connection, window, visual, width, height);
    if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) {
        fprintf(stderr, "c-badge-toolbar: cairo_xcb_surface_create: %s\n", cairo_status_to_string(cairo_surface_status(surface)));
        return 1;
    }
    cairo_t *cr = cairo_create(surface);
    if (cairo_status(cr) != CAIRO_STATUS_SUCCESS) {
        fprintf(stderr, "c-badge-toolbar: cairo_create: %s\n", cairo_status_to_string(cairo_status(cr)));
        return 1;
    }

    struct button *pressed = NULL; // the button a press began on, and with which mouse button
    int pressed_with = 0;
    int dirty = 0;
    struct pollfd fds[2] = {{xcb_get_file_descriptor(connection), POLLIN, 0}, {timer_fd, POLLIN, 0}};
    for (;;) {
        xcb_generic_event_t *event;
        while ((event = xcb_poll_for_event(connection))) {
            switch (event->response_type & 0x7f) {
            case 0:
                fail_x("a request", (xcb_generic_error_t *)event);
                break;
            case XCB_EXPOSE:
                if (((xcb_expose_event_t *)event)->count == 0) dirty = 1;
                break;
            case XCB_CONFIGURE_NOTIFY: {
                xcb_configure_notify_event_t *configure = (xcb_configure_notify_event_t *)event;
                if (configure->window == window && (configure->width != width || configure->height != height)) {
                    width = configure->width;
                    height = configure->height;
                    cairo_xcb_surface_set_size(surface, width, height);
                }
                break;
            }
            case XCB_BUTTON_PRESS: {
                xcb_button_press_event_t *press = (xcb_button_press_event_t *)event;
                if (press->detail == 1 || press->detail == 3) {
                    pressed = button_at(press->event_x, press->event_y);
                    pressed_with = press->detail;
                }
                break;
            }
            case XCB_BUTTON_RELEASE: {
                // A click: press and release on the same button (as GTK's "clicked").
                xcb_button_release_event_t *release = (xcb_button_release_event_t *)event;
                struct button *b = button_at(release->event_x, release->event_y);
                if (b && b == pressed && release->detail == pressed_with) {
                    int before = b->count;
                    if (release->detail == 1 && b->count < INT_MAX) b->count++;
                    if (release->detail == 3 && b->count > 0) b->count--;
                    if (b->count != before) {
                        if (b->count > 0) bounce(b, now_seconds());
                        dirty = 1;
                    }
                }
                if (release->detail == pressed_with) pressed = NULL;
                break;
            }
            case XCB_KEY_PRESS:
                if (keysym_of(((xcb_key_press_event_t *)event)->detail) == KEYSYM_ESCAPE) {
                    free(event);
                    xcb_disconnect(connection);
                    return 0;
                }
                break;
            case XCB_MAPPING_NOTIFY:
                if (((xcb_mapping_notify_event_t *)event)->request == XCB_MAPPING_KEYBOARD) {
                    free(keymap);
                    keymap = NULL;
                }
                break;
            case XCB_CLIENT_MESSAGE: {
                xcb_client_message_event_t *message = (xcb_client_message_event_t *)event;
                if (message->type == wm_protocols && message->format == 32 && message->data.data32[0] == wm_delete_window) {
                    free(event);
                    xcb_disconnect(connection);
                    return 0;
                }
                break;
            }
            default:
                break;
            }
            free(event);
        }
        check_connection();
        if (dirty) {
            // Drawing can read events into XCB's queue (while it waits for a reply): drain again
            // before sleeping.
            paint(cr, surface);
            dirty = 0;
            continue;
        }
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR) continue;
            fail("poll failed");
        }
        if (fds[0].revents & (POLLERR | POLLHUP | POLLNVAL)) fail("the X connection closed");
        if (fds[1].revents & POLLIN) {
            uint64_t expirations;
            if (read(timer_fd, &expirations, sizeof expirations) < 0 && errno != EAGAIN) fail("reading the timerfd failed");
            advance_animations(now_seconds());
            dirty = 1; // the frame at the end of a bounce draws the badge at rest
        }
    }
}
