// GTK 4 for Swift: the library's headers, and small wrappers for what Swift cannot call directly (GObject cast
// macros, signal connections with C callbacks, GLib sources carrying a Swift closure).
#include <gtk/gtk.h>
#include <glib-unix.h>
#include <unistd.h>

// MARK: - Casts (GTK's macros check the type at run time; these are the same casts for Swift)

static inline GtkWindow *cgtk_window(GtkWidget *widget) { return GTK_WINDOW(widget); }
static inline GtkOverlay *cgtk_overlay(GtkWidget *widget) { return GTK_OVERLAY(widget); }
static inline GtkSpinner *cgtk_spinner(GtkWidget *widget) { return GTK_SPINNER(widget); }
static inline GtkLabel *cgtk_label(GtkWidget *widget) { return GTK_LABEL(widget); }
static inline GtkButton *cgtk_button(GtkWidget *widget) { return GTK_BUTTON(widget); }
static inline GtkToggleButton *cgtk_toggle_button(GtkWidget *widget) { return GTK_TOGGLE_BUTTON(widget); }
static inline GtkScrolledWindow *cgtk_scrolled_window(GtkWidget *widget) { return GTK_SCROLLED_WINDOW(widget); }
static inline GtkGrid *cgtk_grid(GtkWidget *widget) { return GTK_GRID(widget); }
static inline GtkBox *cgtk_box(GtkWidget *widget) { return GTK_BOX(widget); }
static inline GtkStyleProvider *cgtk_style_provider(GtkCssProvider *provider) { return GTK_STYLE_PROVIDER(provider); }
static inline void *cgtk_object_ref(void *object) { return g_object_ref(object); }
static inline void cgtk_object_unref(void *object) { g_object_unref(object); }
static inline void *cgtk_object_ref_sink(void *object) { return g_object_ref_sink(object); }

// MARK: - Swift closures as C callbacks

typedef void (*cgtk_function)(void *data);
typedef gboolean (*cgtk_tick_function)(void *data, gint64 frame_time);
typedef void (*cgtk_draw_function)(void *data, cairo_t *cr, int width, int height);
/// A callback with its data (a retained Swift box) and what gives the data back (`release`, may be NULL).
typedef struct {
    union {
        cgtk_function call;
        cgtk_tick_function tick;
        cgtk_draw_function draw;
    } function;
    void *data;
    cgtk_function release;
} cgtk_closure;
static inline cgtk_closure *cgtk_closure_new(void *data, cgtk_function release) {
    cgtk_closure *closure = g_new0(cgtk_closure, 1);
    closure->data = data;
    closure->release = release;
    return closure;
}
static void cgtk_closure_free(gpointer pointer) {
    cgtk_closure *closure = pointer;
    if (closure->release) closure->release(closure->data);
    g_free(closure);
}

// MARK: - Running closures on the main context

static gboolean cgtk_invoke_trampoline(gpointer data) {
    cgtk_closure *closure = data;
    closure->function.call(closure->data);
    return G_SOURCE_REMOVE;
}
/// Runs `function(data)` once on the default main context (the GTK thread), at `priority` (G_PRIORITY_DEFAULT:
/// in the order asked; G_PRIORITY_DEFAULT_IDLE: when nothing else is to be done). Always queued, never run here:
/// on a thread that does not run the context GLib's invoke could otherwise run it at once.
static inline void cgtk_invoke(cgtk_function function, void *data, int priority) {
    cgtk_closure *closure = cgtk_closure_new(data, NULL);
    closure->function.call = function;
    g_idle_add_full(priority, cgtk_invoke_trampoline, closure, cgtk_closure_free);
}
/// Whether the calling thread owns the default main context (is the GTK thread).
static inline int cgtk_is_main_thread(void) { return g_main_context_is_owner(g_main_context_default()); }

// MARK: - Dispatch's main queue, drained from the GLib main loop

extern int _dispatch_get_main_queue_handle_4CF(void);
extern void _dispatch_main_queue_callback_4CF(void *message);

static gboolean cgtk_dispatch_main_queue_ready(gint fd, GIOCondition condition, gpointer data) {
    guint64 count;
    // The descriptor is libdispatch's non-blocking eventfd: reset it, then run what the main queue holds.
    while (read(fd, &count, sizeof count) == sizeof count) {}
    _dispatch_main_queue_callback_4CF(NULL);
    return G_SOURCE_CONTINUE;
}
/// Makes the default main context run `DispatchQueue.main`'s work (as Foundation's run loop does elsewhere).
static inline guint cgtk_attach_dispatch_main_queue(void) {
    return g_unix_fd_add(_dispatch_get_main_queue_handle_4CF(), G_IO_IN, cgtk_dispatch_main_queue_ready, NULL);
}

// MARK: - Signals

static void cgtk_signal_trampoline(gpointer instance, gpointer data) {
    cgtk_closure *closure = data;
    closure->function.call(closure->data);
}
static void cgtk_signal_release(gpointer data, GClosure *unused) { cgtk_closure_free(data); }
/// Calls `function(data)` on each emission of `signal` on `instance`; `release(data)` when disconnected or the
/// instance goes away. Only for signals whose handlers take no arguments and return nothing (`value-changed`,
/// `changed`, a frame clock's phases).
static inline gulong cgtk_connect(void *instance, const char *signal, cgtk_function function, void *data,
                                  cgtk_function release) {
    cgtk_closure *closure = cgtk_closure_new(data, release);
    closure->function.call = function;
    return g_signal_connect_data(instance, signal, G_CALLBACK(cgtk_signal_trampoline), closure,
                                 cgtk_signal_release, 0);
}

// MARK: - Frame clock

static gboolean cgtk_tick_trampoline(GtkWidget *widget, GdkFrameClock *clock, gpointer data) {
    cgtk_closure *closure = data;
    return closure->function.tick(closure->data, gdk_frame_clock_get_frame_time(clock));
}
/// Calls `function(data, frame time in µs)` before every frame of `widget` until it returns FALSE (or the widget
/// goes away); then `release(data)`.
static inline guint cgtk_add_tick(GtkWidget *widget, cgtk_tick_function function, void *data, cgtk_function release) {
    cgtk_closure *closure = cgtk_closure_new(data, release);
    closure->function.tick = function;
    return gtk_widget_add_tick_callback(widget, cgtk_tick_trampoline, closure, cgtk_closure_free);
}

// MARK: - Screenshots

/// Whether any of `widget` lies inside its window (a tile scrolled out of view does not).
static inline int cgtk_widget_in_window(GtkWidget *widget) {
    GtkRoot *root = gtk_widget_get_root(widget);
    if (root == NULL) return 0;
    GtkWidget *window = GTK_WIDGET(root);
    graphene_rect_t bounds;
    if (!gtk_widget_compute_bounds(widget, window, &bounds)) return 0;
    graphene_rect_t inside = GRAPHENE_RECT_INIT(0, 0, gtk_widget_get_width(window), gtk_widget_get_height(window));
    return graphene_rect_intersection(&bounds, &inside, NULL);
}

/// A cairo renderer for `widget`'s window (unrealize and unref it with cgtk_renderer_free), for screenshots: it
/// draws in memory whatever the window's own renderer draws on screen, at half the cost of reading a software GL
/// renderer's drawing back (Xvfb). NULL when the widget is not realised.
static inline GskRenderer *cgtk_cairo_renderer_for(GtkWidget *widget) {
    GtkNative *native = gtk_widget_get_native(widget);
    if (native == NULL || gtk_native_get_surface(native) == NULL) return NULL;
    GskRenderer *renderer = gsk_cairo_renderer_new();
    if (!gsk_renderer_realize(renderer, gtk_native_get_surface(native), NULL)) {
        g_object_unref(renderer);
        return NULL;
    }
    return renderer;
}

static inline void cgtk_renderer_free(GskRenderer *renderer) {
    gsk_renderer_unrealize(renderer);
    g_object_unref(renderer);
}

/// What `widget` shows now (its own drawing and its children's, as last painted), rendered into a texture (unref
/// it) by `renderer`, or by its window's renderer when NULL; NULL when it is not realised or has no size.
static inline GdkTexture *cgtk_widget_render_texture_with(GtkWidget *widget, GskRenderer *renderer) {
    int w = gtk_widget_get_width(widget);
    int h = gtk_widget_get_height(widget);
    GtkNative *native = gtk_widget_get_native(widget);
    if (w <= 0 || h <= 0 || native == NULL) return NULL;
    if (renderer == NULL) renderer = gtk_native_get_renderer(native);
    if (renderer == NULL) return NULL;
    GdkPaintable *paintable = gtk_widget_paintable_new(widget);
    GtkSnapshot *snapshot = gtk_snapshot_new();
    gdk_paintable_snapshot(paintable, GDK_SNAPSHOT(snapshot), w, h);
    g_object_unref(paintable);
    GskRenderNode *node = gtk_snapshot_free_to_node(snapshot);
    if (node == NULL) return NULL;
    graphene_rect_t area = GRAPHENE_RECT_INIT(0, 0, w, h);
    GdkTexture *texture = gsk_renderer_render_texture(renderer, node, &area);
    gsk_render_node_unref(node);
    return texture;
}

/// What `widget` shows now, rendered by its window's renderer into a texture (unref it); NULL when it is not
/// realised or has no size.
static inline GdkTexture *cgtk_widget_render_texture(GtkWidget *widget) {
    return cgtk_widget_render_texture_with(widget, NULL);
}

/// What `widget` shows now, as premultiplied B8G8R8A8 bytes (cairo's layout; g_free them), rendered by `renderer`
/// (NULL: its window's); NULL when it is not realised or has no size. Straighten them with cgtk_bgra_to_rgba, on any
/// thread.
static inline guint8 *cgtk_widget_render_bgra(GtkWidget *widget, GskRenderer *renderer, int *width, int *height) {
    GdkTexture *texture = cgtk_widget_render_texture_with(widget, renderer);
    if (texture == NULL) return NULL;
    int tw = gdk_texture_get_width(texture);
    int th = gdk_texture_get_height(texture);
    guint8 *bgra = g_malloc((gsize)tw * th * 4);
    gdk_texture_download(texture, bgra, (gsize)tw * 4);
    g_object_unref(texture);
    *width = tw;
    *height = th;
    return bgra;
}

/// Turns `count` premultiplied B8G8R8A8 pixels into straight R8G8B8A8, in place.
static inline void cgtk_bgra_to_rgba(guint8 *pixels, gsize count) {
    for (gsize i = 0; i < count; i++) {
        guint8 b = pixels[i * 4], g = pixels[i * 4 + 1], r = pixels[i * 4 + 2], a = pixels[i * 4 + 3];
        if (a > 0 && a < 255) {
            r = (guint8)MIN(255, r * 255 / a);
            g = (guint8)MIN(255, g * 255 / a);
            b = (guint8)MIN(255, b * 255 / a);
        }
        pixels[i * 4] = r;
        pixels[i * 4 + 1] = g;
        pixels[i * 4 + 2] = b;
        pixels[i * 4 + 3] = a;
    }
}

/// What `widget` shows now, as straight RGBA bytes (g_free them); NULL when it is not realised or has no size.
static inline guint8 *cgtk_widget_render_rgba(GtkWidget *widget, int *width, int *height) {
    guint8 *pixels = cgtk_widget_render_bgra(widget, NULL, width, height);
    if (pixels != NULL) cgtk_bgra_to_rgba(pixels, (gsize)*width * *height);
    return pixels;
}

/// What `widget` shows now, as a new cairo image surface (destroy it with cgtk_surface_destroy); NULL when it is
/// not realised or has no size. `*points` is set to the widget's width in points (the surface's width in pixels
/// over it is its scale).
static inline cairo_surface_t *cgtk_widget_render_surface(GtkWidget *widget, int *points) {
    GdkTexture *texture = cgtk_widget_render_texture(widget);
    if (texture == NULL) return NULL;
    cairo_surface_t *surface = cairo_image_surface_create(
        CAIRO_FORMAT_ARGB32, gdk_texture_get_width(texture), gdk_texture_get_height(texture));
    if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) {
        g_object_unref(texture);
        cairo_surface_destroy(surface);
        return NULL;
    }
    cairo_surface_flush(surface);
    // Premultiplied B8G8R8A8: cairo's ARGB32 in memory.
    gdk_texture_download(texture, cairo_image_surface_get_data(surface), cairo_image_surface_get_stride(surface));
    cairo_surface_mark_dirty(surface);
    g_object_unref(texture);
    *points = gtk_widget_get_width(widget);
    return surface;
}

// MARK: - Drawing images with cairo

/// A cairo surface of `width` x `height` straight RGBA pixels, premultiplied and reordered as cairo's ARGB32.
static inline cairo_surface_t *cgtk_surface_rgba(const guint8 *rgba, int width, int height) {
    cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height);
    if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) return surface;
    cairo_surface_flush(surface);
    guint8 *data = cairo_image_surface_get_data(surface);
    int stride = cairo_image_surface_get_stride(surface);
    for (int y = 0; y < height; y++) {
        guint32 *row = (guint32 *)(data + (gsize)y * stride);
        const guint8 *source = rgba + (gsize)y * width * 4;
        for (int x = 0; x < width; x++) {
            guint32 r = source[x * 4], g = source[x * 4 + 1], b = source[x * 4 + 2], a = source[x * 4 + 3];
            r = (r * a + 127) / 255;
            g = (g * a + 127) / 255;
            b = (b * a + 127) / 255;
            row[x] = (a << 24) | (r << 16) | (g << 8) | b;
        }
    }
    cairo_surface_mark_dirty(surface);
    return surface;
}

static inline void cgtk_surface_destroy(cairo_surface_t *surface) { cairo_surface_destroy(surface); }

/// A copy of `surface` scaled to `width` x `height` pixels with cairo's good filter: drawn at one pixel per device
/// pixel it is a plain copy of pixels, however often it is drawn.
static inline cairo_surface_t *cgtk_surface_scaled(cairo_surface_t *surface, int width, int height) {
    cairo_surface_t *scaled = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height);
    if (cairo_surface_status(scaled) != CAIRO_STATUS_SUCCESS) return scaled;
    cairo_t *cr = cairo_create(scaled);
    cairo_scale(cr, (double)width / cairo_image_surface_get_width(surface),
                (double)height / cairo_image_surface_get_height(surface));
    cairo_set_source_surface(cr, surface, 0, 0);
    cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD);
    cairo_pattern_set_extend(cairo_get_source(cr), CAIRO_EXTEND_PAD);  // edges stay opaque
    cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE);
    cairo_paint(cr);
    cairo_destroy(cr);
    return scaled;
}

/// Where a face turned about its centre line puts the point `u` points from that line (across it), seen from
/// `distance` with the face at cos `c` and sin `s` of its angle: the offset from the line on the view.
static inline double cgtk_projected(double u, double c, double s, double distance) {
    return u * c * distance / (distance - u * s);
}

/// The point of the face (in points from its centre line) that `x` (the offset from the line on the view) shows:
/// the inverse of cgtk_projected, clamped to the face's half-size `half`.
static inline double cgtk_unprojected(double x, double c, double s, double distance, double half) {
    double across = c * distance + x * s;  // of c's sign on the face (distance exceeds every |u|)
    if (across * (c < 0 ? -1 : 1) <= 1e-9) return x * c < 0 ? -half : half;
    double u = x * distance / across;
    return MAX(-half, MIN(half, u));
}

/// Draws `surface` in `width` x `height` points, centred: fitted inside (mode 0), covering (1, the overflow cut
/// off) or at its own size (2: `image_scale` pixels per point), with `alpha`, turned by `angle` radians about the
/// centre line (axis 0: vertical, a left-right flip; 1: horizontal, a top-bottom flip) and seen in perspective
/// from a distance of twice the view's size. The turned face is cut across the turn into at most 64 strips on
/// whole points of the view, each showing the part of the face that lies there (found by undoing the
/// perspective), scaled by its depth: neighbours share an edge exactly, so no background shows between them, and
/// every point of the face is drawn by the strip it falls in. A face seen edge-on stays 2 points wide and shows
/// its middle.
static inline void cgtk_draw_surface(cairo_t *cr, cairo_surface_t *surface, int width, int height, double alpha,
                                     double angle, int axis, int mode, double image_scale) {
    int sw = cairo_image_surface_get_width(surface);
    int sh = cairo_image_surface_get_height(surface);
    if (sw <= 0 || sh <= 0 || width <= 0 || height <= 0) return;
    double scale = mode == 1   ? MAX((double)width / sw, (double)height / sh)
                   : mode == 2 ? 1.0 / (image_scale > 0 ? image_scale : 1.0)
                               : MIN((double)width / sw, (double)height / sh);
    cairo_save(cr);
    cairo_rectangle(cr, 0, 0, width, height);
    cairo_clip(cr);
    double fw = sw * scale, fh = sh * scale;
    double cx = width / 2.0, cy = height / 2.0;
    if (angle == 0) {
        cairo_save(cr);
        // On whole pixels: a copy already at the drawn size is then copied, not resampled.
        cairo_translate(cr, round(cx - fw / 2), round(cy - fh / 2));
        cairo_scale(cr, scale, scale);
        cairo_set_source_surface(cr, surface, 0, 0);
        cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD);
        cairo_paint_with_alpha(cr, alpha);
        cairo_restore(cr);
        cairo_restore(cr);
        return;
    }
    double along = axis == 0 ? fw : fh;  // the size across the axis of rotation
    double half = along / 2;
    double source_along = axis == 0 ? sw : sh;
    double centre = axis == 0 ? cx : cy;
    // Twice the larger of the view and the turned side: no point of the face comes to or past the eye (a filled,
    // very wide image is wider than the view).
    double distance = 2.0 * MAX(MAX(width, height), along);
    double c = cos(angle), s = sin(angle);
    // Edge-on the face would vanish for a frame: keep it a sliver 2 points wide.
    double least = 2.0 / MAX(along, 2.0);
    if (fabs(c) < least) {
        c = c < 0 ? -least : least;
        s = (s < 0 ? -1 : 1) * sqrt(1 - c * c);
    }
    // The face's extent across the turn, on whole points of the view (at least one).
    double x0 = cgtk_projected(-half, c, s, distance), x1 = cgtk_projected(half, c, s, distance);
    double first = round(centre + MIN(x0, x1)), last = round(centre + MAX(x0, x1));
    if (last - first < 1) last = first + 1;
    // Pressed narrower than cairo's filter averages (it reads at most 16 source pixels for a pixel), a point of the
    // view would show a sample of the face's pixels, not their mean: thin content between the samples (a spinner,
    // a label in the middle of a placeholder) would vanish. Nearly edge-on, the face shows its middle part instead,
    // pressed 8 to 1: what lies at its centre stays in sight up to the turn.
    double shown = MIN(1.0, 8.0 * (last - first) / source_along);
    int strips = (int)MIN(64.0, last - first);
    for (int i = 0; i < strips; i++) {
        // The strip's edges on the view, and the points of the face (in source pixels) that fall on them.
        double lo = first + round((last - first) * i / strips);
        double hi = first + round((last - first) * (i + 1) / strips);
        double u0 = shown * cgtk_unprojected(lo - centre, c, s, distance, half);
        double u1 = shown * cgtk_unprojected(hi - centre, c, s, distance, half);
        double source0 = (u0 + half) / along * source_along, source1 = (u1 + half) / along * source_along;
        // Both edges beyond the face's rounded end: the face's last pixel (no background between strips).
        if (fabs(source1 - source0) < 1e-3) source1 = source0 + (c < 0 ? -1e-3 : 1e-3);
        // The strip's size along the axis, in perspective, at its middle.
        double um = cgtk_unprojected((lo + hi) / 2 - centre, c, s, distance, half);
        double depth = distance / (distance - um * s);
        cairo_save(cr);
        // Its edges across the turn lie on whole pixels (no column is half covered between two strips); its edges
        // along the axis, the face's slanted sides, are antialiased. Mirrored when the face's order is reversed
        // (the back of the plane): the scale's sign says it.
        if (axis == 0) {
            double h = fh * depth;
            cairo_rectangle(cr, lo, cy - h / 2, hi - lo, h);
            cairo_clip(cr);
            cairo_translate(cr, lo, cy - h / 2);
            cairo_scale(cr, (hi - lo) / (source1 - source0), h / sh);
            cairo_set_source_surface(cr, surface, -source0, 0);
        } else {
            double w = fw * depth;
            cairo_rectangle(cr, cx - w / 2, lo, w, hi - lo);
            cairo_clip(cr);
            cairo_translate(cr, cx - w / 2, lo);
            cairo_scale(cr, w / sw, (hi - lo) / (source1 - source0));
            cairo_set_source_surface(cr, surface, 0, -source0);
        }
        cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD);
        // The strip's own pixels fill it to its edges (no fading into the transparent outside of the image).
        cairo_pattern_set_extend(cairo_get_source(cr), CAIRO_EXTEND_PAD);
        cairo_paint_with_alpha(cr, alpha);
        cairo_restore(cr);
    }
    cairo_restore(cr);
}

static void cgtk_draw_trampoline(GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data) {
    cgtk_closure *closure = data;
    closure->function.draw(closure->data, cr, width, height);
}
/// Makes `function(data, cairo, width, height)` the drawing area's draw function; `release(data)` when replaced.
static inline void cgtk_set_draw(GtkWidget *area, cgtk_draw_function function, void *data, cgtk_function release) {
    cgtk_closure *closure = cgtk_closure_new(data, release);
    closure->function.draw = function;
    gtk_drawing_area_set_draw_func(GTK_DRAWING_AREA(area), cgtk_draw_trampoline, closure, cgtk_closure_free);
}

