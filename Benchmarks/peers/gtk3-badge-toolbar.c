// badge-demo's two-button badge toolbar written with GTK 3, the usual way: each button in a
// GtkOverlay with a CSS-styled GtkLabel as its badge; a click adds one. `make bench` measures its
// launch to first badge pixels and its resident memory next to badge-demo's.
#include <gtk/gtk.h>

static void add_one(GtkButton *button, gpointer user_data) {
    (void)button;
    GtkLabel *badge = GTK_LABEL(user_data);
    int count = atoi(gtk_label_get_text(badge)) + 1;
    char text[16];
    if (count > 99) g_strlcpy(text, "99+", sizeof text);
    else g_snprintf(text, sizeof text, "%d", count);
    gtk_label_set_text(badge, text);
}

int main(int argc, char **argv) {
    gtk_init(&argc, &argv);
    GtkCssProvider *css = gtk_css_provider_new();
    gtk_css_provider_load_from_data(css,
        "window { background: #F5F5F4; }"
        ".badge { background: #E53935; color: white; border-radius: 9px; border: 2px solid #F5F5F4;"
        "         padding: 0 4px; min-width: 10px; min-height: 18px; font: bold 9pt 'DejaVu Sans'; }"
        "button { min-width: 44px; min-height: 44px; padding: 0; font-size: 18pt; }", -1, NULL);
    gtk_style_context_add_provider_for_screen(gdk_screen_get_default(), GTK_STYLE_PROVIDER(css),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);

    GtkWidget *window = gtk_window_new(GTK_WINDOW_TOPLEVEL);
    gtk_window_set_title(GTK_WINDOW(window), "Badges");
    gtk_container_set_border_width(GTK_CONTAINER(window), 8);
    g_signal_connect(window, "destroy", G_CALLBACK(gtk_main_quit), NULL);
    GtkWidget *bar = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    const char *glyphs[] = {"\u2691", "\u2709"};
    const char *counts[] = {"3", "12"};
    for (int i = 0; i < 2; i++) {
        GtkWidget *overlay = gtk_overlay_new();
        GtkWidget *button = gtk_button_new_with_label(glyphs[i]);
        gtk_button_set_relief(GTK_BUTTON(button), GTK_RELIEF_NONE);
        gtk_container_add(GTK_CONTAINER(overlay), button);
        GtkWidget *badge = gtk_label_new(counts[i]);
        gtk_style_context_add_class(gtk_widget_get_style_context(badge), "badge");
        gtk_widget_set_halign(badge, GTK_ALIGN_END);
        gtk_widget_set_valign(badge, GTK_ALIGN_START);
        gtk_overlay_add_overlay(GTK_OVERLAY(overlay), badge);
        g_signal_connect(button, "clicked", G_CALLBACK(add_one), badge);
        gtk_box_pack_start(GTK_BOX(bar), overlay, FALSE, FALSE, 0);
    }
    gtk_container_add(GTK_CONTAINER(window), bar);
    gtk_widget_show_all(window);
    gtk_main();
    return 0;
}
