"""Builds the mlvm wheel: the extension mlvm._mlvm by the project's CMake, the pure-Python
files, the stubs and py.typed from python/mlvm/. Metadata is in pyproject.toml; the version is
CMake's project(VERSION). docs/python.md, "Installing with pip".

The CMake build lives in build-pip/ beside the other build folders. Like them it sits one
level under the source root, so that ccache (CCACHE_BASEDIR is the source root) finds what
build/ compiled: the same flags and the same relative paths make the same cache entries.
Environment: CMAKE_ARGS adds configure arguments; CMAKE_BUILD_PARALLEL_LEVEL sets the jobs
(default: the machine's cores); MLVM_PIP_BUILD_DIR moves the build folder.
"""

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
BUILD_DIR = Path(os.environ.get("MLVM_PIP_BUILD_DIR", ROOT / "build-pip")).resolve()


def cmake_project_version() -> str:
    text = (ROOT / "CMakeLists.txt").read_text()
    m = re.search(r"project\s*\(\s*mlvm\b[^)]*\bVERSION\s+([0-9][0-9.]*)", text)
    if not m:
        raise RuntimeError("CMakeLists.txt: no project(mlvm VERSION x.y.z) to take the version from")
    return m.group(1)


def numpy_include() -> str:
    # The build_backend found NumPy (in the build environment or the system's); CMake is told
    # where its headers are, since its own probe runs an interpreter that may not see it.
    try:
        import numpy
    except ImportError as e:
        raise RuntimeError("building mlvm needs NumPy's headers (Debian: python3-numpy)") from e
    return numpy.get_include()


class CMakeExtension(Extension):
    def __init__(self, name: str, target: str):
        super().__init__(name, sources=[])
        self.target = target


class CMakeBuild(build_ext):
    """Configures the project once into build-pip/ and builds only the extension's target."""

    def build_extension(self, ext: Extension) -> None:
        if not isinstance(ext, CMakeExtension):
            return super().build_extension(ext)
        cmake = shutil.which("cmake")
        if cmake is None:
            raise RuntimeError("building mlvm needs cmake (Debian: cmake); see scripts/setup.sh")
        build_dir = BUILD_DIR
        configure = [cmake, "-S", str(ROOT), "-B", str(build_dir),
                     "-DCMAKE_BUILD_TYPE=Release",
                     f"-DPython3_EXECUTABLE={sys.executable}",
                     f"-DPython3_NumPy_INCLUDE_DIR={numpy_include()}",
                     "-DMLVM_BUILD_PYTHON=ON", "-DMLVM_BUILD_TESTS=OFF", "-DMLVM_BUILD_BENCH=OFF"]
        try:  # pybind11 from the index (a build without Debian's pybind11-dev)
            import pybind11
            configure.append(f"-Dpybind11_DIR={pybind11.get_cmake_dir()}")
        except ImportError:
            pass
        # Ninja (Debian's ninja-build) when present, for a folder not yet configured: CMake
        # refuses to change the generator of an existing one.
        if not (build_dir / "CMakeCache.txt").exists() and shutil.which("ninja"):
            configure += ["-G", "Ninja"]
        configure += shlex.split(os.environ.get("CMAKE_ARGS", ""))
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 2)
        self.announce(f"mlvm: building the extension in {build_dir}", level=2)
        subprocess.run(configure, check=True)
        subprocess.run([cmake, "--build", str(build_dir), "--target", ext.target, "-j", jobs],
                       check=True)

        # The extension as CMake named it (_mlvm + this interpreter's suffix), where setuptools
        # packs it from.
        dest = Path(self.get_ext_fullpath(ext.name))
        built = build_dir / "python" / "mlvm" / dest.name
        if not built.exists():
            found = sorted(p.name for p in (build_dir / "python" / "mlvm").glob("_mlvm*"))
            raise RuntimeError(f"CMake built {found}, not {dest.name} for {sys.executable}")
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built, dest)


# setuptools' own staging and the egg-info go into the build folder too, not into the source
# root or into build/, which is CMake's.
BUILD_DIR.mkdir(parents=True, exist_ok=True)
setup(
    version=cmake_project_version(),
    options={"build": {"build_base": str(BUILD_DIR / "setuptools")},
             "egg_info": {"egg_base": str(BUILD_DIR)}},
    ext_modules=[CMakeExtension("mlvm._mlvm", target="mlvm_python")],
    cmdclass={"build_ext": CMakeBuild},
)
