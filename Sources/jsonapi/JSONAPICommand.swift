import ArgumentParser

@main
struct JSONAPICommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "jsonapi", abstract: "JSON:API documents as a stream.")
}
