"""Compiled code is cached under a digest of every compiled source, so a change to a helper a
kernel inlines from another module compiles the kernel afresh instead of loading it stale."""

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

from sim.core import kernel_cache

ROOT = Path(__file__).resolve().parents[1]


def _copy_of_sim(tmp_path: Path) -> Path:
    copy = tmp_path / "sim"
    shutil.copytree(ROOT / "sim", copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def test_the_digest_follows_an_inlined_helper_and_only_compiled_code(tmp_path):
    copy = _copy_of_sim(tmp_path)
    before = kernel_cache.sources_digest(copy)
    assert before == kernel_cache.sources_digest(ROOT / "sim")
    # xoshiro's step is inlined into every kernel by LLVM: the kernels' own files are unchanged
    xoshiro = copy / "core" / "xoshiro.py"
    xoshiro.write_text(xoshiro.read_text().replace(
        "def next_u64(s0, s1, s2, s3):", "def next_u64(s0, s1, s2, s3):  # changed"))
    changed = kernel_cache.sources_digest(copy)
    assert changed != before
    errors = copy / "core" / "errors.py"  # no compiled code there: its cache stays valid
    assert b"import numba" not in errors.read_bytes()
    errors.write_text(errors.read_text() + "\n# a change\n")
    assert kernel_cache.sources_digest(copy) == changed


def test_a_process_compiles_into_the_folder_of_its_digest(tmp_path):
    """A fresh interpreter that loads a kernel caches it under <base>/<digest>, and its child
    processes (which inherit the named folder) use the same folder, not one inside it."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    code = ("import os\nfrom sim.core import xoshiro, kernel_cache\n"
            "import numpy as np\nxoshiro.raw_outputs(1, np.zeros(4, dtype=np.uint64))\n"
            "print(kernel_cache.folder())\nprint(os.environ['NUMBA_CACHE_DIR'])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, check=True, cwd=ROOT).stdout.split()
    digest = kernel_cache.sources_digest()
    assert out == [str(tmp_path / digest)] * 2
    assert any((tmp_path / digest).rglob("*.nbi")), "nothing cached in the digest's folder"
    child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env={**env, "NUMBA_CACHE_DIR": out[0]}, check=True,
                           cwd=ROOT).stdout.split()
    assert child == out


def _imports_kernel_cache(path: Path) -> bool:
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module == "sim.core" and any(
                alias.name == "kernel_cache" for alias in node.names):
            return True
    return False


def test_every_module_that_caches_compiled_code_points_numba_at_the_folder():
    missing = [str(p.relative_to(ROOT)) for p in sorted((ROOT / "sim").rglob("*.py"))
               if "cache=True" in p.read_text() and p.name != "kernel_cache.py"
               and not _imports_kernel_cache(p)]
    assert not missing, missing


def test_importing_the_package_leaves_the_process_alone():
    """``import sim`` sets no environment variable, loads no compiled code and tunes no
    allocator: a host process pays only for what it uses of the engine."""
    code = ("import os, sys\nbefore = dict(os.environ)\nimport sim\n"
            "print(dict(os.environ) == before, 'numba' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout.split()
    assert out == ["True", "False"]
