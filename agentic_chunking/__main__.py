"""``python -m agentic_chunking`` runs the command line."""

from .cli._main import entry

entry()
