import BadgeCore
import CCairo

/// A cairo drawing context (`cairo_t`): what every drawing API of BadgeKit draws into.
///
/// Not Sendable: a context belongs to the thread that draws with it. Make one with
/// ``ImageSurface/draw(_:)``, or wrap a context your own code created with
/// ``borrowing(_:_:)``. The raw pointer is reached only inside ``withUnsafeHandle(_:)``.
public final class CairoContext {
    private let handle: OpaquePointer
    private let owned: Bool

    /// Wraps `handle`; with `owned`, destroys it when this object goes away.
    init(handle: OpaquePointer, owned: Bool) {
        self.handle = handle
        self.owned = owned
    }

    deinit {
        if owned { cairo_destroy(handle) }
    }

    /// Lends a `cairo_t` your own code created (for example on a cairo-xcb surface) to BadgeKit's
    /// drawing for the duration of `body`. The context is neither referenced nor destroyed afterwards;
    /// its state (source, transformation) is restored when `body` returns.
    public static func borrowing<Result>(_ cairo: OpaquePointer, _ body: (CairoContext) throws -> Result) rethrows -> Result {
        let context = CairoContext(handle: cairo, owned: false)
        cairo_save(cairo)
        defer { cairo_restore(cairo) }
        return try body(context)
    }

    /// Calls `body` with the raw `cairo_t`, valid only during the call: for cairo calls of your own
    /// between BadgeKit's. Do not keep the pointer.
    public func withUnsafeHandle<Result>(_ body: (OpaquePointer) throws -> Result) rethrows -> Result {
        try body(handle)
    }

    /// Runs `body` and restores the context's state (source, transformation, clip) afterwards.
    public func withSavedState<Result>(_ body: () throws -> Result) rethrows -> Result {
        cairo_save(handle)
        defer { cairo_restore(handle) }
        return try body()
    }

    /// Scales user space by `factor` in both directions: draw in logical units on a device-pixel target.
    public func scale(by factor: Double) {
        guard factor.isFinite, factor > 0 else { return }
        cairo_scale(handle, factor, factor)
    }

    /// Moves user space's origin by (`dx`, `dy`).
    public func translate(dx: Double, dy: Double) {
        cairo_translate(handle, dx, dy)
    }

    /// Restricts later drawing to `rect` (user space), until the saved state is restored.
    public func clip(to rect: Rect) {
        cairo_rectangle(handle, rect.minX, rect.minY, rect.width, rect.height)
        cairo_clip(handle)
    }

    /// Makes `color` the source of later fills and text.
    public func setColor(_ color: Color) {
        CairoPaths.setColor(handle, color)
    }

    /// Fills `rect` (user space) with `color`, its corners rounded by `cornerRadius` (clamped to half
    /// the shorter side).
    public func fill(_ rect: Rect, color: Color, cornerRadius: Double = 0) {
        CairoPaths.roundedRect(handle, rect, radius: cornerRadius)
        CairoPaths.setColor(handle, color)
        cairo_fill(handle)
    }

    /// Replaces everything inside the clip with `color` (the source operator: alpha is copied, not blended).
    public func paint(_ color: Color) {
        cairo_save(handle)
        cairo_set_operator(handle, CAIRO_OPERATOR_SOURCE)
        CairoPaths.setColor(handle, color)
        cairo_paint(handle)
        cairo_restore(handle)
    }
}
