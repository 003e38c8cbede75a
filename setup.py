"""Builds the Python module with CMake for `pip install --no-build-isolation .` (see
pyproject.toml): configures a Release build for the Python that runs pip (Python3_EXECUTABLE),
builds the target rsw_python and places _radixsweep*.so in the package. CMAKE_ARGS (e.g.
"-DRSW_ENABLE_CUDA=OFF") reach the configure step; the build directory is build/pip."""

import os
import pathlib
import shlex
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent


class CMakeExtension(Extension):
    def __init__(self):
        super().__init__("radixsweep._radixsweep", sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, extension):
        build = ROOT / "build" / "pip"
        target = pathlib.Path(self.get_ext_fullpath(extension.name)).resolve()
        configure = [
            "cmake", "-S", str(ROOT), "-B", str(build), "-G", "Ninja",
            "-DCMAKE_BUILD_TYPE=Release",
            f"-DPython3_EXECUTABLE={sys.executable}",
            "-DRSW_BUILD_PYTHON=ON", "-DRSW_BUILD_RENDER=OFF", "-DRSW_BUILD_TESTS=OFF",
            "-DRSW_BUILD_BENCH=OFF", "-DRSW_BUILD_EXAMPLES=OFF", "-DRSW_INSTALL=OFF",
            *shlex.split(os.environ.get("CMAKE_ARGS", "")),
        ]
        subprocess.run(configure, check=True)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
        subprocess.run(["cmake", "--build", str(build), "--target", "rsw_python", "-j", jobs],
                       check=True)
        built = next((build / "python" / "radixsweep").glob("_radixsweep*.so"))
        target.parent.mkdir(parents=True, exist_ok=True)
        self.copy_file(str(built), str(target))


setup(ext_modules=[CMakeExtension()], cmdclass={"build_ext": CMakeBuild})
