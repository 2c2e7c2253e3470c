import JSONAPIStream

/// The system's libpq, loaded when the first PostgreSQL connection is made, not when the
/// program starts.
///
/// Linked the usual way, libpq and what it pulls in (Kerberos, LDAP, GnuTLS, about twenty
/// libraries) were mapped and relocated at every start of `jsonapi`, also by the commands
/// that never touch a database: about 4 MiB of the resident set before anything was read, and
/// a program that did not start at all where libpq is not installed. Loaded here, they cost
/// only the runs that connect, and a missing library is an error that says what to install.
///
/// Nothing here needs libpq's header to build: the functions are looked up by name, with
/// the C types `libpq-fe.h` declares for them (a connection and a result are opaque
/// pointers), and the few status codes used are below (the header's enum values, unchanged
/// since libpq 7.4; `LibPQTests` compares them with the header). `JSONAPI_LIBPQ`, when set,
/// is the library to load (a path or a file name), for a libpq outside the loader's search
/// path.
package final class LibPQ: Sendable {
    /// `ConnStatusType`, `ExecStatusType` and `PGTransactionStatusType` values.
    package static let connectionOK: UInt32 = 0
    package static let commandOK: UInt32 = 1
    package static let tuplesOK: UInt32 = 2
    package static let copyIn: UInt32 = 4
    package static let transactionActive: UInt32 = 1
    package static let transactionInTransaction: UInt32 = 2
    package static let transactionInError: UInt32 = 3

    /// `PQnoticeProcessor`.
    typealias NoticeProcessor = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> Void

    let connectdb: @convention(c) (UnsafePointer<CChar>?) -> OpaquePointer?
    let status: @convention(c) (OpaquePointer?) -> UInt32
    let errorMessage: @convention(c) (OpaquePointer?) -> UnsafeMutablePointer<CChar>?
    let finish: @convention(c) (OpaquePointer?) -> Void
    let setNoticeProcessor: @convention(c) (OpaquePointer?, NoticeProcessor?, UnsafeMutableRawPointer?) -> NoticeProcessor?
    let setClientEncoding: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> Int32
    let transactionStatus: @convention(c) (OpaquePointer?) -> UInt32
    let clear: @convention(c) (OpaquePointer?) -> Void
    let resultStatus: @convention(c) (OpaquePointer?) -> UInt32
    let resultErrorMessage: @convention(c) (OpaquePointer?) -> UnsafeMutablePointer<CChar>?
    let exec: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> OpaquePointer?
    let execParams:
        @convention(c) (
            OpaquePointer?, UnsafePointer<CChar>?, Int32, UnsafePointer<UInt32>?, UnsafePointer<UnsafePointer<CChar>?>?,
            UnsafePointer<Int32>?, UnsafePointer<Int32>?, Int32
        ) -> OpaquePointer?
    let cmdTuples: @convention(c) (OpaquePointer?) -> UnsafeMutablePointer<CChar>?
    let nfields: @convention(c) (OpaquePointer?) -> Int32
    let ntuples: @convention(c) (OpaquePointer?) -> Int32
    let putCopyData: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, Int32) -> Int32
    let putCopyEnd: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> Int32
    let getResult: @convention(c) (OpaquePointer?) -> OpaquePointer?
    let getisnull: @convention(c) (OpaquePointer?, Int32, Int32) -> Int32
    let getvalue: @convention(c) (OpaquePointer?, Int32, Int32) -> UnsafeMutablePointer<CChar>?
    let getlength: @convention(c) (OpaquePointer?, Int32, Int32) -> Int32

    /// The library, loaded once per process (a failure is kept and reported every time).
    static func shared() throws(JSONAPIError) -> LibPQ { try loaded.get() }

    private static let loaded: Result<LibPQ, JSONAPIError> = Result { () throws(JSONAPIError) in try LibPQ() }

    /// The file names tried in turn when `JSONAPI_LIBPQ` is not set.
    static var defaultNames: [String] {
        #if canImport(Darwin)
        ["libpq.5.dylib", "libpq.dylib"]
        #else
        ["libpq.so.5", "libpq.so"]
        #endif
    }

    private init() throws(JSONAPIError) {
        let library = try LoadedLibrary(
            names: Self.defaultNames, variable: "JSONAPI_LIBPQ", needs: "PostgreSQL needs the libpq client library",
            install: "Debian and Ubuntu: apt-get install libpq5; macOS: brew install libpq")
        func symbol<F>(_ name: String) throws(JSONAPIError) -> F {
            try library.symbol(name, missing: "the libpq client library has no \(name) (too old? libpq 10 or later is needed)")
        }
        connectdb = try symbol("PQconnectdb")
        status = try symbol("PQstatus")
        errorMessage = try symbol("PQerrorMessage")
        finish = try symbol("PQfinish")
        setNoticeProcessor = try symbol("PQsetNoticeProcessor")
        setClientEncoding = try symbol("PQsetClientEncoding")
        transactionStatus = try symbol("PQtransactionStatus")
        clear = try symbol("PQclear")
        resultStatus = try symbol("PQresultStatus")
        resultErrorMessage = try symbol("PQresultErrorMessage")
        exec = try symbol("PQexec")
        execParams = try symbol("PQexecParams")
        cmdTuples = try symbol("PQcmdTuples")
        nfields = try symbol("PQnfields")
        ntuples = try symbol("PQntuples")
        putCopyData = try symbol("PQputCopyData")
        putCopyEnd = try symbol("PQputCopyEnd")
        getResult = try symbol("PQgetResult")
        getisnull = try symbol("PQgetisnull")
        getvalue = try symbol("PQgetvalue")
        getlength = try symbol("PQgetlength")
    }
}
