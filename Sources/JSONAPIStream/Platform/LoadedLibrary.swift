#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A system library opened (`dlopen`) when it is first needed rather than linked, so that the
/// runs that never use it neither map nor relocate it, and a machine without it runs the
/// rest: libcrypto (``SHA256Hasher``) and libpq (`JSONAPILoad`'s `LibPQ`). It stays open for
/// the rest of the process: the functions looked up point into it.
package struct LoadedLibrary: @unchecked Sendable {
    /// Invariant: a handle `dlopen` returned, never closed.
    private let handle: UnsafeMutableRawPointer

    /// Opens the library `variable` names (a path or a file name) when that environment
    /// variable is set and not empty, else the first of `names` that loads.
    ///
    /// - Parameters:
    ///   - needs: what needs it, the start of the error (`"PostgreSQL needs the libpq client
    ///     library"`).
    ///   - install: how to install it, for the error when no name loads.
    /// - Throws: ``JSONAPIError/input(_:)`` with the loader's reasons and what to do.
    package init(names: [String], variable: String, needs: String, install: String) throws(JSONAPIError) {
        let chosen = getenv(variable).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
        var reasons: [String] = []
        for name in chosen.map({ [$0] }) ?? names {
            if let h = dlopen(name, RTLD_NOW | RTLD_LOCAL) {
                handle = h
                return
            }
            reasons.append(dlerror().map { String(cString: $0) } ?? "\(name): cannot be loaded")
        }
        let how = chosen == nil ? "install it (\(install)) or set \(variable) to its path" : "\(variable) names it; unset it to use the system's"
        throw JSONAPIError.input("\(needs), which could not be loaded (\(reasons.joined(separator: "; "))): \(how)")
    }

    /// The function `name`, if the library has it. Unsafe: `F` must be the C function type
    /// the library's header declares for `name`.
    package func optional<F>(_ name: String) -> F? {
        dlsym(handle, name).map { unsafeBitCast($0, to: F.self) }
    }

    /// The function `name` (as ``optional(_:)``), or an error saying `missing` when the
    /// library lacks it.
    package func symbol<F>(_ name: String, missing: String) throws(JSONAPIError) -> F {
        guard let f: F = optional(name) else { throw JSONAPIError.input(missing) }
        return f
    }
}
