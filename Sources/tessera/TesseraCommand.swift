import ArgumentParser

@main
struct TesseraCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tessera",
        abstract: "Big images and video, cheap to show.",
        subcommands: [
            InfoCommand.self, ConvertCommand.self, ThumbnailCommand.self, TileCommand.self, LoadCommand.self, RenderCommand.self,
            StripCommand.self, TrimmerCommand.self, TrimCommand.self,
        ]
    )
}
