/// Changes written over a graph by the ``DocumentEncoder``: attributes and relationships
/// replaced by name in existing resources, and new resources (as finished resource-object
/// texts).
struct EditOverlay {
    struct Edit {
        /// Attribute name and value text; a name the resource has keeps its position.
        var attributes: [(name: String, value: [UInt8])] = []
        /// Relationship name and relationship-object text.
        var relationships: [(name: String, value: [UInt8])] = []
    }

    var edits: [Int: Edit] = [:]
    var newResources: [(primary: Bool, text: [UInt8])] = []

    func edit(for row: Int) -> Edit? { edits[row] }
}
