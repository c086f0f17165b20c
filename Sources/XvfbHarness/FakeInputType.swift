/// Core event codes used with XTEST FakeInput.
public enum FakeInputType: UInt8, Sendable {
    /// A key goes down (`detail`: keycode).
    case keyPress = 2
    /// A key comes up.
    case keyRelease = 3
    /// A pointer button goes down (`detail`: button number).
    case buttonPress = 4
    /// A pointer button comes up.
    case buttonRelease = 5
    /// The pointer moves (absolute, root coordinates).
    case motionNotify = 6
}
