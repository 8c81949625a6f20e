"""The suite's pytest wiring lives in the package; this file only loads it.

``pytester`` is loaded for the tests that run the suite as a user meets it.
"""

pytest_plugins = ["agentic_chunking.suite.plugin", "pytester"]
