import CCurl
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One exchange of a ``CurlTransport``: a libcurl easy handle, and the response body as a
/// ``TransportBody``.
///
/// Threads: the easy handle and the `loop…` members are used only on the loop's thread once
/// ``start(_:)`` has handed the transfer over; the body goes through a ``BodyChannel``; the
/// head's continuation and the request to unpause are guarded by `lock`. No continuation is
/// resumed and no libcurl function is called while `lock` is held (libcurl may call back into
/// the transfer from `curl_easy_pause`).
final class CurlTransfer: TransportBody, @unchecked Sendable {
    let easy: UnsafeMutableRawPointer
    let origin: String
    let limits: TransportLimits
    private let loop: CurlLoop
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))

    // MARK: Loop-thread state

    /// Header lines of the response being read (a `1xx` head is replaced by the next).
    private var loopHeaders: [(String, String)] = []
    private var loopHeadSent = false
    /// Uptime (ns) when the transfer was added to the multi handle, and of its last byte.
    var loopStarted: UInt64 = 0
    var loopLastByte: UInt64 = 0
    /// The write callback returned `CURL_WRITEFUNC_PAUSE` and the loop has not unpaused the
    /// transfer since (paused time is not idle time).
    private(set) var loopPaused = false

    // MARK: Shared state (under `lock`)

    private let lock = NSLock()
    private var head: CheckedContinuation<Result<TransportResponse, TransportError>, Never>?
    /// The consumer took the buffer of a paused transfer: the loop is to unpause it.
    private var resumeRequested = false
    /// The body, from the write callback to ``next()``.
    private var channel: BodyChannel!

    init(request: URLRequest, url: URL, limits: TransportLimits, options: CurlTransport.Options, loop: CurlLoop) throws(TransportError) {
        guard let easy = curl_easy_init() else { throw TransportError(.other, "libcurl could not make a handle") }
        self.easy = easy
        self.limits = limits
        self.loop = loop
        let host = url.host?.lowercased() ?? ""
        origin = "\(url.scheme?.lowercased() ?? "")://\(host):\(url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80))"
        channel = BodyChannel(readAhead: max(options.readAhead, 1024)) { [weak self] in self?.requestResume() }
        errorBuffer.initialize(to: 0)
        do {
            try configure(request: request, url: url, host: host, options: options)
        } catch {
            cleanUp()
            throw error
        }
    }

    deinit { errorBuffer.deallocate() }

    private func configure(request: URLRequest, url: URL, host: String, options: CurlTransport.Options) throws(TransportError) {
        func check(_ code: CURLcode, _ what: String) throws(TransportError) {
            guard code == CURLE_OK else { throw TransportError(.other, "libcurl refused \(what): \(String(cString: curl_easy_strerror(code)))") }
        }
        let me = Unmanaged.passUnretained(self).toOpaque()
        try check(jsonapi_curl_setopt_pointer(easy, CURLOPT_URL, url.absoluteString), "the URL \(url.absoluteString)")
        try check(jsonapi_curl_setopt_pointer(easy, CURLOPT_PROTOCOLS_STR, "http,https"), "the protocols")
        _ = jsonapi_curl_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        _ = jsonapi_curl_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0)
        _ = jsonapi_curl_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer)
        _ = jsonapi_curl_setopt_write(easy, CURLOPT_WRITEFUNCTION, curlWriteBody)
        _ = jsonapi_curl_setopt_pointer(easy, CURLOPT_WRITEDATA, me)
        _ = jsonapi_curl_setopt_write(easy, CURLOPT_HEADERFUNCTION, curlWriteHeader)
        _ = jsonapi_curl_setopt_pointer(easy, CURLOPT_HEADERDATA, me)
        _ = jsonapi_curl_setopt_long(easy, CURLOPT_BUFFERSIZE, 64 * 1024)
        _ = jsonapi_curl_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(limits.idleTimeout))
        if let file = options.certificateAuthorities {
            try check(jsonapi_curl_setopt_pointer(easy, CURLOPT_CAINFO, file), "the certificate file \(file)")
        }
        if let pins = options.pinnedPublicKeys[host] ?? options.pinnedPublicKeys["*"], url.scheme?.lowercased() == "https" {
            try check(jsonapi_curl_setopt_pointer(easy, CURLOPT_PINNEDPUBLICKEY, pins), "the pinned public keys \(pins)")
        }

        let method = request.httpMethod?.uppercased() ?? "GET"
        let body = request.httpBody
        switch method {
        case "GET" where body == nil: _ = jsonapi_curl_setopt_long(easy, CURLOPT_HTTPGET, 1)
        case "HEAD": _ = jsonapi_curl_setopt_long(easy, CURLOPT_NOBODY, 1)
        case "POST": _ = jsonapi_curl_setopt_long(easy, CURLOPT_POST, 1)
        default: try check(jsonapi_curl_setopt_pointer(easy, CURLOPT_CUSTOMREQUEST, method), "the method \(method)")
        }
        if let body, method != "HEAD" {
            _ = jsonapi_curl_setopt_offset(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
            // COPYPOSTFIELDS copies the bytes: the request may go before the transfer ends.
            let code = body.withUnsafeBytes { b in jsonapi_curl_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, b.baseAddress ?? UnsafeRawPointer(errorBuffer)) }
            try check(code, "the request body")
        }

        var names = Set<String>()
        for (name, value) in request.allHTTPHeaderFields ?? [:] {
            names.insert(name.lowercased())
            // `Name;` is how libcurl sends a header with an empty value.
            headerList = curl_slist_append(headerList, value.isEmpty ? "\(name);" : "\(name): \(value)")
        }
        // No `Expect: 100-continue` round trip before a request body; no default `Accept`.
        if !names.contains("expect") { headerList = curl_slist_append(headerList, "Expect:") }
        if !names.contains("accept") { headerList = curl_slist_append(headerList, "Accept:") }
        if body != nil && !names.contains("content-type") { headerList = curl_slist_append(headerList, "Content-Type:") }
        _ = jsonapi_curl_setopt_pointer(easy, CURLOPT_HTTPHEADER, headerList)
        if options.acceptsCompression && !names.contains("accept-encoding") {
            _ = jsonapi_curl_setopt_pointer(easy, CURLOPT_ACCEPT_ENCODING, "")
        }
    }

    private func cleanUp() {
        curl_easy_cleanup(easy)
        curl_slist_free_all(headerList)
        headerList = nil
    }

    static func milliseconds(_ seconds: Double) -> Int {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return Int(min(seconds * 1000, Double(Int32.max)).rounded(.up))
    }

    // MARK: From the caller

    /// Hands the transfer to the loop; `head` is resumed with the response's head or the
    /// failure.
    func start(_ head: CheckedContinuation<Result<TransportResponse, TransportError>, Never>) {
        lock.lock()
        if channel.stopped != nil {
            lock.unlock()
            cleanUp()
            head.resume(returning: .failure(TransportError(.cancelled, "cancelled")))
            return
        }
        self.head = head
        lock.unlock()
        loop.add(self)
    }

    private func requestResume() {
        lock.withLock { resumeRequested = true }
        loop.wake(self)
    }

    func next() async throws(TransportError) -> [UInt8]? { try await channel.next() }

    func cancel() {
        if channel.stop(TransportError(.cancelled, "cancelled")) { loop.wake(self) }
    }

    // MARK: On the loop's thread

    /// What the caller asked for since the last look: stop, or go on after a pause.
    func loopTakeRequests() -> (cancel: Bool, resume: Bool) {
        let resume = lock.withLock {
            defer { resumeRequested = false }
            return resumeRequested
        }
        if resume { loopPaused = false }
        return (channel.stopped != nil, resume)
    }

    /// libcurl's header callback: one line of the head.
    fileprivate func loopHeaderLine(_ line: UnsafeRawBufferPointer) -> Int {
        loopLastByte = DispatchTime.now().uptimeNanoseconds
        var end = line.count
        while end > 0, line[end - 1] == 0x0A || line[end - 1] == 0x0D { end -= 1 }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: line[..<end]), as: UTF8.self)
        if text.hasPrefix("HTTP/") {
            loopHeaders = []
        } else if text.isEmpty {
            var status = 0
            _ = jsonapi_curl_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
            if status >= 200 || status == 101 { loopSendHead(status: status) }
        } else if let colon = text.firstIndex(of: ":") {
            let name = text[..<colon].trimmingCharacters(in: .whitespaces)
            let value = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            loopHeaders.append((name, value))
        }
        return line.count
    }

    private func loopSendHead(status: Int) {
        guard !loopHeadSent else { return }
        loopHeadSent = true
        var headers: [String: String] = [:]
        for (name, value) in loopHeaders {
            let key = name.lowercased()
            headers[key] = headers[key].map { "\($0), \(value)" } ?? value
        }
        lock.lock()
        let c = head
        head = nil
        lock.unlock()
        c?.resume(returning: .success(TransportResponse(status: status, headers: headers, body: self)))
    }

    /// libcurl's write callback: bytes of the body. Returns the count taken, `0` to abort
    /// (cancelled), or `CURL_WRITEFUNC_PAUSE` when the read-ahead is full.
    fileprivate func loopBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        loopLastByte = DispatchTime.now().uptimeNanoseconds
        if !loopHeadSent {
            var status = 0
            _ = jsonapi_curl_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
            loopSendHead(status: status)
        }
        guard bytes.count > 0 else { return 0 }
        switch channel.offer(bytes, canRefuse: true) {
        case .taken, .takenFull:
            return bytes.count
        case .refused:
            loopPaused = true
            return jsonapi_curl_write_pause()
        case .stopped:
            return 0
        }
    }

    /// The end of the transfer (removed from the multi handle already): `error` is `nil`
    /// after the body's last byte.
    func loopFinish(_ error: TransportError?) {
        if error == nil && !loopHeadSent {
            var status = 0
            _ = jsonapi_curl_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
            loopSendHead(status: status)
        }
        cleanUp()
        // A cancelled transfer ends with libcurl's abort: it stays cancelled.
        let failure = error.map { channel.stopped ?? $0 }
        channel.finish(failure)
        let c = lock.withLock {
            defer { head = nil }
            return head
        }
        if let failure { c?.resume(returning: .failure(failure)) }
    }

    /// The failure libcurl reported as `code`.
    func loopError(_ code: CURLcode) -> TransportError {
        let detail = errorBuffer.pointee == 0 ? String(cString: curl_easy_strerror(code)) : String(cString: errorBuffer)
        let kind: TransportError.Kind
        let message: String
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY: (kind, message) = (.unknownHost, "unknown host (\(detail))")
        case CURLE_COULDNT_CONNECT: (kind, message) = (.cannotConnect, "connection refused (\(detail))")
        case CURLE_OPERATION_TIMEDOUT: (kind, message) = (.timedOut, detail)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CERTPROBLEM,
            CURLE_SSL_INVALIDCERTSTATUS:
            (kind, message) = (.tls, "TLS: \(detail)")
        case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            (kind, message) = (.tls, "TLS: the server's public key matches none of the pinned keys (\(detail))")
        case CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_HTTP2, CURLE_HTTP2_STREAM:
            (kind, message) = (.connectionLost, detail)
        case CURLE_WRITE_ERROR, CURLE_ABORTED_BY_CALLBACK: (kind, message) = (.cancelled, "cancelled")
        default: (kind, message) = (.other, detail)
        }
        return TransportError(kind, message)
    }
}

/// libcurl's write callback (`CURLOPT_WRITEFUNCTION`); `user` is the transfer, which the loop
/// keeps alive while its handle is in the multi handle.
private let curlWriteBody: curl_write_callback = { data, size, count, user in
    guard let user else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(user).takeUnretainedValue()
    return transfer.loopBody(UnsafeRawBufferPointer(start: data, count: size * count))
}

/// libcurl's header callback (`CURLOPT_HEADERFUNCTION`), one line at a time.
private let curlWriteHeader: curl_write_callback = { data, size, count, user in
    guard let user else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(user).takeUnretainedValue()
    return transfer.loopHeaderLine(UnsafeRawBufferPointer(start: data, count: size * count))
}
