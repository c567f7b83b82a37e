"""Names a package offers but loads at first use (PEP 562), so importing a package, and starting a
command through it, loads nothing heavy the caller does not use. CAUTION: a name is never spelled
like a module of its package (docs/design.md says why)."""

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
