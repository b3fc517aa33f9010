"""Shared helpers for the engine tests (the browser tests live in tests/browser/)."""

from __future__ import annotations

import os

from hypothesis import settings

# HYPOTHESIS_MAX_EXAMPLES=2000 pytest ... runs the properties harder.
settings.register_profile(
    "engine", max_examples=int(os.environ.get("HYPOTHESIS_MAX_EXAMPLES", "150")), deadline=None
)
settings.load_profile("engine")

# --doctest-modules would import each conftest.py a second time as a plain
# module named "conftest", and the second one collides with the first. They
# hold no doctests; pytest still loads them as conftests.
collect_ignore = ["conftest.py", "browser/conftest.py"]
# The goldens' capture scripts are run by hand (python tests/engine/golden/.../capture.py
# OUT): imported by --doctest-modules, one would write its answers over sys.argv[1].
collect_ignore_glob = ["engine/golden/*"]
