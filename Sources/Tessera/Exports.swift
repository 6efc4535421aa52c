@_exported import TesseraCore
@_exported import TesseraCodecs
@_exported import TesseraTiles
@_exported import TesseraStorage
@_exported import TesseraPipeline
@_exported import TesseraVideo
