"""Names a package offers but loads at first use (PEP 562), so that importing a package, and
starting a command that imports through it, loads nothing heavy the caller does not use.

A package's `__init__` lists each name beside its home module; `lazy_names` returns the module
`__getattr__` and `__dir__` that look a name up there at first use and keep it in the package's
globals, so later look-ups never reach the hook. CAUTION: a name is never spelled like a module
of its package (`workbench.text.segment` is a module, `segment_version` the verb), because
importing a submodule binds its name on the package and would hide the name of the same spelling.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_names(
    namespace: dict[str, Any], homes: Mapping[str, str]
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """`(__getattr__, __dir__)` for the package whose globals are `namespace`.

    `homes` maps each name to its home: a module path ("workbench.text.segment"), where the name
    is looked up under its own spelling, or "module:attribute" for a name kept under another
    spelling there. A name not in `homes` raises AttributeError, as for any module.
    """
    package = namespace["__name__"]

    def getattr_(name: str) -> object:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, _, attribute = home.partition(":")
        value = getattr(importlib.import_module(module), attribute or name)
        namespace[name] = value  # found once; later look-ups skip the hook
        return value

    def dir_() -> list[str]:
        return sorted({*namespace, *homes})

    return getattr_, dir_
