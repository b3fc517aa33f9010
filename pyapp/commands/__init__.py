"""Command-line sub-commands: one module each, exposing ``add_parser(subparsers)``."""
