/// BadgeKit's version, as the accessibility bridge reports it (Application.Version) and
/// applications may in their own `--version`.
package enum BadgeKitVersion {
    /// "0.2.0".
    package static let string = "0.2.0"
}
