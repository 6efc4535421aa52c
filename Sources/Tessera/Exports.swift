@_exported import TesseraCodecs
@_exported import TesseraCore
@_exported import TesseraPipeline
@_exported import TesseraStorage
@_exported import TesseraTiles
@_exported import TesseraTrimming
@_exported import TesseraVideo
@_exported import TesseraViewing
