import os
import subprocess
import sys
from pathlib import Path

import sim


def test_compiled_code_is_cached_under_a_digest_of_the_kernel_sources(tmp_path):
    # numba checks a cached kernel against its own file only; the kernels inline helpers
    # from other modules, so the cache folder must change with any of them.
    digest = sim._kernel_sources_digest()
    assert len(digest) == 16
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    code = "import os, sim; print(os.environ['NUMBA_CACHE_DIR'])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, check=True).stdout.strip()
    assert Path(out).name == digest and Path(out).parent.name == "numba"


def test_the_digest_follows_an_inlined_helper(tmp_path, monkeypatch):
    root = Path(sim.__file__).parent
    copy = tmp_path / "sim"
    for path in root.rglob("*.py"):
        target = copy / path.relative_to(root)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(path.read_bytes())
    monkeypatch.setattr(sim, "__file__", str(copy / "__init__.py"))
    before = sim._kernel_sources_digest()
    xoshiro = copy / "xoshiro.py"
    xoshiro.write_text(xoshiro.read_text() + "\n# a change\n")
    changed = sim._kernel_sources_digest()
    assert changed != before
    errors = copy / "errors.py"  # no compiled code there: its cache stays valid
    assert b"import numba" not in errors.read_bytes()
    errors.write_text(errors.read_text() + "\n# a change\n")
    assert sim._kernel_sources_digest() == changed
