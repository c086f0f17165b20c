import Glibc

/// The process's environment, read in one place: a variable that is unset or empty is nil, as
/// desktop programs treat both (`DISPLAY=`, `NO_AT_BRIDGE=`).
package enum Environment {
    /// The value of `name`, or nil when it is unset or empty.
    package static func value(_ name: String) -> String? {
        guard let raw = getenv(name), raw.pointee != 0 else { return nil }
        return String(cString: raw)
    }
}
