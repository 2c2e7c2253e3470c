import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The session's delegate: routes each task's events to its ``Exchange``. Every call comes
/// on the session's delegate queue (serial), so the exchanges and the consumers they feed
/// are used from one thread at a time.
final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private var exchanges: [Int: Exchange] = [:]

    func register(_ task: URLSessionTask, _ exchange: Exchange) {
        exchanges[task.taskIdentifier] = exchange
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let proceed = exchanges[dataTask.taskIdentifier]?.receive(response) ?? false
        completionHandler(proceed ? .allow : .cancel)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        exchanges[dataTask.taskIdentifier]?.receive(data)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(exchanges[task.taskIdentifier]?.redirect(response, to: request))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        exchanges.removeValue(forKey: task.taskIdentifier)?.complete(error)
    }

}
