"""The suite's pytest wiring lives in the package; this file only loads it."""

pytest_plugins = ["agentic_chunking.suite.plugin"]
