import TilecutCLI

TilecutCommand.main()
