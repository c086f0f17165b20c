import CDBusLoader

/// Writing ``DBusValue``s into a libdbus message and reading them back out.
extension BadgeDBus {
    /// A D-Bus type code from its one-letter name (the `DBUS_TYPE_*_AS_STRING` constants; the
    /// `DBUS_TYPE_*` character casts do not reach Swift).
    package static func typeCode(_ name: String) -> Int32 { Int32(name.utf8.first ?? 0) }

    /// Appends `values` to `message`; false when libdbus ran out of memory (drop the message then).
    package func append(_ values: [DBusValue], to message: OpaquePointer) -> Bool {
        var iter = BadgeDBusMessageIter()
        message_iter_init_append(message, &iter)
        for value in values where !append(value, to: &iter) { return false }
        return true
    }

    private func append(_ value: DBusValue, to iter: inout BadgeDBusMessageIter) -> Bool {
        switch value {
        case .bool(let flag):
            var word: UInt32 = flag ? 1 : 0
            return message_iter_append_basic(&iter, Self.typeCode(DBUS_TYPE_BOOLEAN_AS_STRING), &word) != 0
        case .int16(var number):
            return message_iter_append_basic(&iter, Self.typeCode(DBUS_TYPE_INT16_AS_STRING), &number) != 0
        case .int32(var number):
            return message_iter_append_basic(&iter, Self.typeCode(DBUS_TYPE_INT32_AS_STRING), &number) != 0
        case .uint32(var number):
            return message_iter_append_basic(&iter, Self.typeCode(DBUS_TYPE_UINT32_AS_STRING), &number) != 0
        case .int64(var number):
            return message_iter_append_basic(&iter, Self.typeCode(DBUS_TYPE_INT64_AS_STRING), &number) != 0
        case .double(var number):
            return message_iter_append_basic(&iter, Self.typeCode(DBUS_TYPE_DOUBLE_AS_STRING), &number) != 0
        case .string(let text), .objectPath(let text):
            let type = Self.typeCode(value.signature)
            // libdbus rejects invalid UTF-8 (and calls abort() on it): text from Swift is valid,
            // and a NUL inside would cut it, so it is removed.
            let clean = text.contains("\0") ? text.replacing("\0", with: "") : text
            return clean.withCString { pointer in
                var cString: UnsafePointer<CChar>? = pointer
                return message_iter_append_basic(&iter, type, &cString) != 0
            }
        case .structure(let fields):
            return container(Self.typeCode(DBUS_TYPE_STRUCT_AS_STRING), signature: nil, in: &iter) { sub in
                fields.allSatisfy { append($0, to: &sub) }
            }
        case .array(let element, let items):
            return container(Self.typeCode(DBUS_TYPE_ARRAY_AS_STRING), signature: element, in: &iter) { sub in
                items.allSatisfy { append($0, to: &sub) }
            }
        case .dictEntry(let key, let entry):
            return container(Self.typeCode(DBUS_TYPE_DICT_ENTRY_AS_STRING), signature: nil, in: &iter) { sub in
                append(key, to: &sub) && append(entry, to: &sub)
            }
        case .variant(let inner):
            return container(Self.typeCode(DBUS_TYPE_VARIANT_AS_STRING), signature: inner.signature, in: &iter) { sub in
                append(inner, to: &sub)
            }
        }
    }

    private func container(_ type: Int32, signature: String?, in iter: inout BadgeDBusMessageIter,
                           _ body: (inout BadgeDBusMessageIter) -> Bool) -> Bool {
        var sub = BadgeDBusMessageIter()
        let opened: Bool
        if let signature {
            opened = signature.withCString { message_iter_open_container(&iter, type, $0, &sub) != 0 }
        } else {
            opened = message_iter_open_container(&iter, type, nil, &sub) != 0
        }
        guard opened else { return false }
        let filled = body(&sub)
        return message_iter_close_container(&iter, &sub) != 0 && filled
    }

    /// The arguments of `message` (nil for a type the shell never reads, such as a file descriptor).
    package func arguments(of message: OpaquePointer) -> [DBusValue]? {
        var iter = BadgeDBusMessageIter()
        guard message_iter_init(message, &iter) != 0 else { return [] }
        return values(at: &iter)
    }

    private func values(at iter: inout BadgeDBusMessageIter) -> [DBusValue]? {
        var result: [DBusValue] = []
        while message_iter_get_arg_type(&iter) != 0 {
            guard let value = value(at: &iter) else { return nil }
            result.append(value)
            if message_iter_next(&iter) == 0 { break }
        }
        return result
    }

    private func value(at iter: inout BadgeDBusMessageIter) -> DBusValue? {
        let type = message_iter_get_arg_type(&iter)
        func basic<T: BitwiseCopyable>(_ zero: T) -> T {
            var value = zero
            withUnsafeMutableBytes(of: &value) { message_iter_get_basic(&iter, $0.baseAddress) }
            return value
        }
        func inner() -> [DBusValue]? {
            var sub = BadgeDBusMessageIter()
            message_iter_recurse(&iter, &sub)
            return values(at: &sub)
        }
        switch type {
        case Self.typeCode(DBUS_TYPE_BOOLEAN_AS_STRING): return .bool(basic(UInt32(0)) != 0)
        case Self.typeCode(DBUS_TYPE_INT16_AS_STRING): return .int16(basic(Int16(0)))
        case Self.typeCode(DBUS_TYPE_INT32_AS_STRING): return .int32(basic(Int32(0)))
        case Self.typeCode(DBUS_TYPE_UINT32_AS_STRING): return .uint32(basic(UInt32(0)))
        case Self.typeCode(DBUS_TYPE_INT64_AS_STRING): return .int64(basic(Int64(0)))
        case Self.typeCode(DBUS_TYPE_DOUBLE_AS_STRING): return .double(basic(Double(0)))
        case Self.typeCode(DBUS_TYPE_STRING_AS_STRING), Self.typeCode(DBUS_TYPE_OBJECT_PATH_AS_STRING):
            let pointer = basic(UnsafePointer<CChar>?.none)
            let text = pointer.map { String(cString: $0) } ?? ""
            return type == Self.typeCode(DBUS_TYPE_STRING_AS_STRING) ? .string(text) : .objectPath(text)
        case Self.typeCode(DBUS_TYPE_STRUCT_AS_STRING):
            return inner().map { .structure($0) }
        case Self.typeCode(DBUS_TYPE_DICT_ENTRY_AS_STRING):
            guard let pair = inner(), pair.count == 2 else { return nil }
            return .dictEntry(pair[0], pair[1])
        case Self.typeCode(DBUS_TYPE_VARIANT_AS_STRING):
            guard let content = inner(), let first = content.first else { return nil }
            return .variant(first)
        case Self.typeCode(DBUS_TYPE_ARRAY_AS_STRING):
            // The element type is not kept for reading: the shell reads no empty typed arrays.
            return inner().map { .array(element: $0.first?.signature ?? "", $0) }
        default:
            return nil
        }
    }

    /// The text of a header field (path, interface, member, signature, sender), "" when absent.
    package static func text(_ pointer: UnsafePointer<CChar>?) -> String {
        pointer.map { String(cString: $0) } ?? ""
    }
}
