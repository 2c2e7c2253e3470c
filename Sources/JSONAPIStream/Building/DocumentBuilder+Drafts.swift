// Documents, resources, relationships and identifiers: starting and finishing their drafts
// and handing them to the sink.
extension DocumentBuilder {
    // MARK: - Documents

    func startDocument() -> Bool {
        numberAlarm?.enterDocument()
        frames.push(.document)
        member = .none
        document = DocumentDraft()
        document.index = documentCount
        document.position = currentLocation()
        documentExtras.clearKeepingCapacity()
        documentErrorsAfterData = false
        documentHasErrors = false
        documentHasExtensionMember = false
        atomic.declared = false
        atomic.recordingOperations = false
        return true
    }

    func finishDocument() -> Bool {
        if elementRange != nil { return finishElements() }
        document.extras = documentExtras
        if validation != .off && (document.atomicOperations >= 0 || document.atomicResults >= 0) {
            if !checkAtomicDocument() { return false }
        }
        if validation != .off {
            let hasErrors = !document.errors.isNone
            if !document.hasData && !hasErrors && document.meta.isNone && !documentHasExtensionMember {
                if !report(.R02, "a document MUST contain at least one of data, errors, meta", at: .at(document.position), pointer: "") { return false }
            }
            if document.hasData && hasErrors {
                if !report(.R03, "data and errors MUST NOT coexist in the same document", at: .at(document.position), pointer: documentErrorsAfterData ? "/errors" : "/data") { return false }
            }
            if document.hasIncluded && !document.hasData {
                if !report(.R04, "included MUST NOT be present without data", at: .at(document.position), pointer: "/included") { return false }
            }
        }
        do throws(JSONAPIError) {
            try sink.document(document, in: arenas)
        } catch {
            return failWith(error)
        }
        if recordsTopLevel {
            lastDocument = DocumentTopLevel(
                index: documentCount,
                linksJSON: document.links.isNone ? nil : arenas.store.array(document.links.range),
                metaJSON: document.meta.isNone ? nil : arenas.store.array(document.meta.range))
        }
        documentCount += 1
        // The document is complete: its top-level values are no longer needed here.
        if !keepsValues { arenas.store.truncate(to: 0) }
        member = .none
        return true
    }

    // MARK: - A range of elements (a worker's)

    /// Reads a range of elements next (``ElementRange``), once its prefix is fed.
    func beginElements(_ range: ElementRange) {
        elementRange = range
        skipsPrefixNull = range.firstElement > 0
    }

    /// The prefix's `null`: the next element is the range's first.
    func skipPrefixNull() -> Bool {
        skipsPrefixNull = false
        levels.topPointer.pointee.count = Int32(truncatingIfNeeded: elementRange!.firstElement)
        return true
    }

    /// The end of the prefix's document, after the range: its rules and its sink's document
    /// are the caller's (who reads the rest of it).
    func finishElements() -> Bool {
        elementRange = nil
        if !keepsValues { arenas.store.truncate(to: 0) }
        member = .none
        return true
    }

    // MARK: - Resources

    func startResource(primary: Bool, index: Int32) -> Bool {
        frames.push(.resource)
        member = .none
        resource = ResourceDraft()
        resource.isPrimary = primary
        resource.arrayIndex = index
        resource.documentIndex = documentCount
        resource.storeMark = arenas.store.count
        if let alarm = numberAlarm { alarm.enterResource() }
        resource.position = currentLocation()
        arenas.scratch.removeAll()
        arenas.relationshipDrafts.removeAll()
        arenas.identifierDrafts.removeAll()
        arenas.memberSpans.removeAll()
        resourceExtras.clearKeepingCapacity()
        relationshipsAfterAttributes = false
        if validation != .off {
            attributeNames.removeAll()
            attributeBits = NameFilter()
            relationshipNames.removeAll()
        }
        return true
    }

    func finishResource() -> Bool {
        if let alarm = numberAlarm { alarm.inResource = false }
        resource.extras = appendMemberSpans(&resourceExtras)
        resource.relationships = 0..<Int32(arenas.relationshipDrafts.count)
        if resource.type.isNone {
            if requiresKeys || validation != .off {
                if !keyRule(.R09, "a resource object MUST contain type\(requiresKeys ? "; it cannot be keyed" : "")", at: .at(resource.position), pointer: resource.pointer) { return false }
            }
        }
        if resource.id.isNone {
            let allowed = options.context != .response && resource.isPrimary
            if resource.lid.isNone && !allowed {
                if requiresKeys || validation != .off {
                    if !keyRule(.R10, "a resource object MUST contain id\(requiresKeys ? "; it cannot be keyed" : "")", at: .at(resource.position), pointer: resource.pointer) { return false }
                }
            } else if !allowed && validation != .off {
                // A lid without id is for a new resource in a request.
                if options.context == .response {
                    if !report(.R10, "a resource object MUST contain id (lid alone is for new resources in requests)", at: .at(resource.position), pointer: resource.pointer) { return false }
                }
            }
        }
        if validation != .off && !attributeNames.isEmpty || validation != .off && !arenas.relationshipDrafts.isEmpty {
            if !checkFieldNamespace() { return false }
        }
        do throws(JSONAPIError) {
            try sink.resource(resource, in: &arenas)
        } catch {
            return failWith(error)
        }
        resourcesBuilt &+= 1
        if resource.inResults { noteResultResource() }
        if !keepsValues { arenas.store.truncate(to: resource.storeMark) }
        member = .none
        return true
    }

    /// Moves an owner's collected unknown members to `memberSpans`; returns their range.
    @inline(__always)
    func appendMemberSpans(_ pending: inout [ValueSpan]) -> Range<Int32> {
        let s = Int32(arenas.memberSpans.count)
        if !pending.isEmpty {
            arenas.memberSpans.append(contentsOf: pending)
            pending.clearKeepingCapacity()
        }
        return s..<Int32(arenas.memberSpans.count)
    }

    // MARK: - Relationships and identifiers

    func finishRelationship() -> Bool {
        relationship.extras = appendMemberSpans(&relationshipExtras)
        if validation != .off, relationship.kind == .absent, relationship.links.isNone, relationship.meta.isNone,
            !relationshipHasExtensionMember
        {
            if !report(.R18, "a relationship object MUST contain at least one of links, data, meta", at: .container) { return false }
        }
        arenas.relationshipDrafts.push(relationship)
        member = .none
        return true
    }

    func startIdentifier() -> Bool {
        identifier = IdentifierDraft()
        identifierExtras.clearKeepingCapacity()
        frames.push(.identifier)
        return true
    }

    func finishIdentifier() -> Bool {
        identifier.extras = appendMemberSpans(&identifierExtras)
        if identifier.type.isNone || (identifier.id.isNone && identifier.lid.isNone) {
            let what = identifier.type.isNone ? "type" : "id (or lid)"
            if !keyRule(.R13, "a resource identifier object MUST contain \(what)\(requiresKeys ? "; the linkage cannot be keyed" : "")", at: .container) { return false }
        } else if identifier.id.isNone && options.context == .response && validation != .off {
            if !report(.R13, "a resource identifier object MUST contain id (lid alone is for new resources in requests)", at: .container) { return false }
        }
        if let hints = wantedHints, !identifier.type.isNone, !identifier.id.isNone {
            hints._withUnsafeGuaranteedRef {
                $0.hint(type: arenas.scratch.bytes(in: identifier.type.range), id: arenas.scratch.bytes(in: identifier.id.range))
            }
        }
        arenas.identifierDrafts.push(identifier)
        relationship.targets = relationship.targets.lowerBound..<Int32(arenas.identifierDrafts.count)
        member = .none
        return true
    }

    // MARK: - Scratch

    @inline(__always)
    func appendToScratch(_ bytes: UnsafeRawBufferPointer) -> ScratchSpan {
        let start = arenas.scratch.count
        arenas.scratch.append(bytes)
        return ScratchSpan(start: Int32(truncatingIfNeeded: start), count: Int32(truncatingIfNeeded: bytes.count))
    }
}
