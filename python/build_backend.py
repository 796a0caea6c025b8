"""The PEP 517 build backend of pyproject.toml: setuptools' own, made to work offline.

pip and `python3 -m build` build in an isolated environment by default, into which they first
download the backend's requirements. Debian machines often have no package index, yet have
setuptools, wheel and NumPy installed as Debian packages (python3-setuptools, python3-wheel,
python3-numpy). So pyproject.toml declares no static requirements, and this module:
  - when the isolated environment lacks setuptools, wheel or NumPy, appends the interpreter's
    own site directories (the ones isolation hid) to sys.path, after everything else, so the
    system's copies are used and nothing is downloaded;
  - names, in get_requires_for_build_wheel, only what is still missing after that, which a
    machine with an index then downloads as usual.
setup.py does the building itself.
"""

from __future__ import annotations

import importlib.util
import re
import site
import sys

# What setup.py imports: setuptools runs it, wheel writes the wheel, NumPy's headers build the
# extension.
_NEEDED = {"setuptools": "setuptools>=61", "wheel": "wheel", "numpy": "numpy"}


def _missing() -> list[str]:
    return [req for mod, req in _NEEDED.items() if importlib.util.find_spec(mod) is None]


def _add_system_site_dirs() -> None:
    # site.getsitepackages() of the base prefix: the directories pip's and build's isolation
    # leave out (Debian's /usr/lib/python3/dist-packages among them). Appended, so anything
    # the isolated environment installed still comes first.
    prefixes = list(dict.fromkeys([sys.prefix, sys.base_prefix]))
    for path in site.getsitepackages(prefixes):
        if path not in sys.path:
            sys.path.append(path)
    importlib.invalidate_caches()


if _missing():
    _add_system_site_dirs()

if importlib.util.find_spec("setuptools") is not None:
    from setuptools import build_meta as _meta
    from setuptools.build_meta import *  # noqa: F401,F403  (the hooks this module re-exports)
else:
    _meta = None


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~;\[ ]", requirement, maxsplit=1)[0]


def _requires(hook: str, config_settings) -> list[str]:
    # What is still missing, and whatever setuptools asks for (wheel) that is not here either.
    wanted = _missing()
    if _meta is not None:
        wanted += [r for r in getattr(_meta, hook)(config_settings)
                   if r not in wanted and importlib.util.find_spec(_name(r)) is None]
    return wanted


def get_requires_for_build_wheel(config_settings=None):
    return _requires("get_requires_for_build_wheel", config_settings)


def get_requires_for_build_sdist(config_settings=None):
    return _requires("get_requires_for_build_sdist", config_settings)


def get_requires_for_build_editable(config_settings=None):
    return _requires("get_requires_for_build_editable", config_settings)
