/// Where an IMAP source gets its password: never from the config file itself.
public enum IMAPPassword: Equatable, Sendable {
    /// A program that prints the password on its first line (`["pass", "show", "mail"]`), run
    /// without a shell, with a time limit, as mbsync's `PassCmd` and aerc's `source-cred-cmd`.
    case command([String])
    /// The Secret Service (GNOME Keyring, KeePassXC): the unlocked item with these attributes, as
    /// `secret-tool store --label=mail service imap user me` stores it.
    case secretService([String: String])
}
