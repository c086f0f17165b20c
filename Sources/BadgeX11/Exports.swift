// BadgeX11 programs use BadgeIO's loop, D-Bus and control socket, and BadgeDesktop's locale and
// screen-reader strings, without importing them themselves.
@_exported import BadgeIO
@_exported import BadgeDesktop
