"""``python -m agentic_chunking`` runs the command line."""

from .cli import entry

entry()
