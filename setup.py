# SPDX-License-Identifier: MIT
"""The build step of `pip install --no-build-isolation .`: CMake builds the project and
`cmake --install --strip --prefix <wheel>/morpheus` fills the package: the Python modules and
extensions (_tokenizer, _embed: torch-free, the model on the engine), bin/ (morpheus,
morpheus-torch, morpheus-spm) and share/morpheus (configs, lexicons). The installed package finds its binaries
in its own bin/ (_paths.py), the binaries their data in ../share/morpheus (core/install_dirs.h).

By default CMake configures and builds build/pip (Release, no tests or benchmarks).
$MORPHEUS_CMAKE_BUILD_DIR names a build tree that is already configured and built (e.g.
build/ci after scripts/build.sh ci): it is installed from as it is, which takes seconds.
"""
import os
import re
import shutil
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

ROOT = os.path.dirname(os.path.abspath(__file__))
REUSED = os.environ.get("MORPHEUS_CMAKE_BUILD_DIR", "")
CMAKE_BUILD = os.path.abspath(REUSED) if REUSED else os.path.join(ROOT, "build", "pip")
TARGETS = ["morpheus", "morpheus-torch", "morpheus-spm", "morpheus_python_tokenizer",
           "morpheus_python_embed"]


def project_version():
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        return re.search(r"project\(morpheus VERSION ([0-9.]+)", f.read()).group(1)


def run(cmd, env=None):
    print("setup.py:", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True, env=env)


def configure_and_build():
    cmd = ["cmake", "-S", ROOT, "-B", CMAKE_BUILD, "-DCMAKE_BUILD_TYPE=Release",
           "-DMORPHEUS_BUILD_TESTS=OFF", "-DMORPHEUS_BUILD_BENCH=OFF",
           f"-DPython3_EXECUTABLE={sys.executable}"]
    if shutil.which("ninja"):
        cmd += ["-G", "Ninja"]
    run(cmd)
    jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
    run(["cmake", "--build", CMAKE_BUILD, "-j", jobs, "--target", *TARGETS])


class CMakeInstall(build_py):
    """build_py: the package comes from `cmake --install` alone."""

    def run(self):
        if REUSED:
            if not os.path.exists(os.path.join(CMAKE_BUILD, "CMakeCache.txt")):
                sys.exit(f"error: MORPHEUS_CMAKE_BUILD_DIR={REUSED} is not a configured build "
                         "tree\nhint: scripts/build.sh ci, then MORPHEUS_CMAKE_BUILD_DIR=build/ci")
        else:
            configure_and_build()
        package = os.path.join(os.path.abspath(self.build_lib), "morpheus")
        env = dict(os.environ, MORPHEUS_PY_INSTALL_DIR=package)
        run(["cmake", "--install", CMAKE_BUILD, "--strip", "--prefix", package], env=env)


class BinaryDistribution(Distribution):
    """A platform wheel (cpXY-linux_*): the package holds extensions and executables."""

    def has_ext_modules(self):
        return True


# setuptools' own scratch files stay inside the CMake build tree, out of the checkout.
SCRATCH = os.path.join(CMAKE_BUILD, "setuptools")
os.makedirs(SCRATCH, exist_ok=True)
setup(
    version=project_version(),
    package_dir={"": "python"},
    packages=["morpheus"],
    cmdclass={"build_py": CMakeInstall},
    distclass=BinaryDistribution,
    options={"build": {"build_base": SCRATCH}, "egg_info": {"egg_base": SCRATCH}},
)
