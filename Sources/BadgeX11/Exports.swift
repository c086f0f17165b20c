// BadgeX11 programs use BadgeIO's loop, D-Bus and control socket without importing it themselves.
@_exported import BadgeIO
