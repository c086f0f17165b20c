import BadgeCore

/// What the app takes from its config file, derived once per reading (at start and at every
/// reload) and kept in one place: which buttons are bound to which sources, each button's Do Not
/// Disturb choice and click action, whether the defaults apply, and whether root may use the
/// socket. Values only: the file's reader is ``ToolbarConfig``.
struct AppConfig {
    /// The sources the file binds, by button id, in the file's order.
    var sourceConfigs: [(id: String, source: SourceConfig)] = []
    /// True when the file lists no buttons (or there is no file): the default sources apply.
    var usesDefaultSources = true
    /// How each button shows during Do Not Disturb, by id.
    var quietChoices: [String: DoNotDisturbDisplay] = [:]
    /// What a click on a button does instead of counting, by id.
    var clickActions: [String: ClickAction] = [:]
    /// Whether root may use the control socket (`"control": {"allowRoot": true}`).
    var allowsRoot = false

    /// Nothing read yet (no file).
    init() {}

    /// What `config` says; `fromFile` false for the bundled toolbar (no file, or one that could
    /// not be used): the defaults apply and root is refused.
    init(_ config: ToolbarConfig, fromFile: Bool) {
        sourceConfigs = config.buttons.compactMap { button in button.source.map { (button.id, $0) } }
        quietChoices = Dictionary(config.buttons.map { ($0.id, $0.doNotDisturb) }, uniquingKeysWith: { first, _ in first })
        clickActions = Dictionary(config.buttons.compactMap { button in button.click.map { (button.id, $0) } },
                                  uniquingKeysWith: { first, _ in first })
        usesDefaultSources = !(fromFile && config.listsButtons)
        allowsRoot = fromFile && config.allowsRoot
    }

    /// The kind of source each button is bound to (none under the defaults: they bind only what exists).
    var boundKinds: [String: String] {
        usesDefaultSources ? [:] : Dictionary(sourceConfigs.map { ($0.id, $0.source.kind) }, uniquingKeysWith: { first, _ in first })
    }
}
