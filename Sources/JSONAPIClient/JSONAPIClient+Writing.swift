import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JSONAPIStream
import Logging

extension JSONAPIClient {
    /// Creates a resource: `POST /TYPE` with ``JSONAPIStream/EditableResource/createDocument()``
    /// (checked against rule C01 before it is sent).
    ///
    /// - Returns: The created resource as the server returned it (with its server-assigned
    ///   id), or `nil` when the server answered without a document (`204 No Content` for a
    ///   client-generated id).
    /// - Throws: ``JSONAPIClientError`` (a refused resource is `.server` with the error
    ///   objects, e.g. status 422 or 400 with `source.pointer`), or `CancellationError`.
    public func create(_ resource: EditableResource, query: JSONAPIQuery = JSONAPIQuery()) async throws -> Resource? {
        let body = try requestBody { () throws(JSONAPIError) in try resource.createDocument() }
        let created = try await send("POST", url(type: resource.type, query: query), body: body)?.primary.first
        checkClientID(resource.type, sent: resource.id, returned: created)
        return created
    }

    /// Logs a warning when a server answered a create with a client-generated id with
    /// another id (it ignored the one sent and assigned its own).
    private func checkClientID(_ type: String, sent: String?, returned: Resource?) {
        guard let sent, let returned, let assigned = returned.id, assigned != sent || returned.type != type else { return }
        configuration.logger.warning(
            "the server ignored the client-generated id \(sent) of a new \(type) resource and assigned its own, \(returned.type) \(assigned)")
    }

    /// Updates a resource: `PATCH /TYPE/ID` with only what changed
    /// (``JSONAPIStream/EditableResource/updateDocument()``, checked against rule C02).
    ///
    /// - Returns: The resource as the server returned it, or `nil` for `204 No Content`.
    public func update(_ resource: EditableResource, query: JSONAPIQuery = JSONAPIQuery()) async throws -> Resource? {
        guard let id = resource.id else { throw JSONAPIClientError.invalidRequest("an update needs the resource's id") }
        let body = try requestBody { () throws(JSONAPIError) in try resource.updateDocument() }
        identities.forget(type: resource.type, id: id)
        return try await send("PATCH", url(type: resource.type, id: id, query: query), body: body)?.primary.first
    }

    /// Deletes a resource: `DELETE /TYPE/ID`.
    public func delete(type: String, id: String) async throws {
        identities.forget(type: type, id: id)
        _ = try await send("DELETE", url(type: type, id: id), body: nil)
    }

    /// Deletes the resource `identifier` names (it needs an `id`).
    public func delete(_ identifier: ResourceIdentifier) async throws {
        guard let id = identifier.id else { throw JSONAPIClientError.invalidRequest("\(identifier) has no id to delete") }
        try await delete(type: identifier.type, id: id)
    }

    /// Replaces a relationship's linkage:
    /// `PATCH /TYPE/ID/relationships/NAME` with `{"data":…}` (checked against rule C03).
    public func updateRelationship(_ name: String, of resource: ResourceIdentifier, to linkage: RelationshipLinkage) async throws {
        guard let id = resource.id else { throw JSONAPIClientError.invalidRequest("\(resource) has no id") }
        let body = try requestBody { () throws(JSONAPIError) in try linkage.document() }
        let path = configuration.resourcePath(resource.type, id) + "/relationships/" + pathSegment(name)
        _ = try await send("PATCH", url(path), body: body)
    }

    /// Sends the requests of an editor in the order they were recorded: a PATCH for each
    /// edited resource with changes, a POST for each new one.
    ///
    /// - Returns: What the server returned for each request (`nil` for `204 No Content`).
    public func send(_ editor: GraphEditor) async throws -> [Resource?] {
        let requests = try requestBody { () throws(JSONAPIError) in try editor.requestDocuments() }
        var out: [Resource?] = []
        for r in requests {
            let url =
                r.method == "POST"
                ? try url(type: r.resource.type)
                : try url(type: r.resource.type, id: r.resource.id ?? "")
            let returned = try await send(r.method, url, body: r.body)?.primary.first
            if r.method == "POST" { checkClientID(r.resource.type, sent: r.resource.id, returned: returned) }
            out.append(returned)
        }
        return out
    }

    /// Sends one request with a JSON:API body (or none) and reads the response document, if
    /// any, into a graph.
    ///
    /// - Returns: The response's graph, or `nil` when it had no body.
    /// - Throws: ``JSONAPIClientError``, or `CancellationError`.
    public func send(_ method: String, _ url: URL, body: [UInt8]?) async throws -> Graph? {
        let parser = GraphParser(options: configuration.documentOptions)
        let slot = PageSlot(name: "\(method) \(url.absoluteString)", consumer: ConsumerBox(parser, progress: nil))
        let request = Self.request(url, method: method, body: body)
        _ = try await transport.send(request, slot: method == "DELETE" ? nil : slot, conditional: false)
        guard try await transport.consume(url, { () throws(JSONAPIError) in try slot.finish() }) != nil else { return nil }
        let bound = QueueBound(value: parser)
        return try await transport.consume(url) { () throws(JSONAPIError) in try bound.value.finish() }
    }

    private func requestBody<T>(_ make: () throws(JSONAPIError) -> T) throws(JSONAPIClientError) -> T {
        do { return try make() } catch {
            throw JSONAPIClientError.invalidRequest(error.diagnostic?.ruleStyle ?? error.description)
        }
    }
}
