"""The pytest plugin, run as a user would: pytest in a fresh directory that merely installed mathcheck."""

import subprocess
import sys
from importlib.metadata import entry_points

from tests.test_registry_user_claims import ALIBI, FALSE_CLAIM

pytest_plugins = ["pytester"]


def test_the_plugin_is_registered_under_pytest11():
    eps = [e for e in entry_points(group="pytest11") if e.name == "mathcheck"]
    assert [e.value for e in eps] == ["mathcheck.pytest_plugin"]


def test_the_plugin_imports_neither_sympy_nor_torch():
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, mathcheck.pytest_plugin; print('sympy' in sys.modules, 'torch' in sys.modules)",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.split() == ["False", "False"]


def test_mathcheck_collects_the_catalog_in_a_fresh_project(pytester):
    r = pytester.runpytest_subprocess("--mathcheck", "-k", "softmax-jacobian", "-v", "-p", "no:cacheprovider")
    r.assert_outcomes(passed=2)
    r.stdout.fnmatch_lines(["*mathcheck::softmax-jacobian PASSED*", "*mathcheck::softmax-jacobian::mutants PASSED*"])


def test_user_claims_under_xdist_and_a_failure_is_a_report_not_a_traceback(pytester):
    pytester.makepyfile(my_false_claims=FALSE_CLAIM)
    r = pytester.runpytest_subprocess(
        "--mathcheck-from", "my_false_claims.py", "--mathcheck-from", ALIBI, "-n", "2", "-p", "no:cacheprovider"
    )
    r.assert_outcomes(passed=3, failed=1)
    out = r.stdout.str()
    assert "mathcheck::user-softmax-scale" in out
    assert "counterexample" in out
    assert "replay: mathcheck prove user-softmax-scale --seed 0 --from my_false_claims.py" in out
    assert "Traceback" not in out and "site-packages" not in out


def test_a_bad_spec_is_a_usage_error(pytester):
    r = pytester.runpytest_subprocess("--mathcheck-from", "nowhere.py", "-p", "no:cacheprovider")
    assert r.ret == 4  # pytest's usage error
    r.stderr.fnmatch_lines(["*--from 'nowhere.py': no such file*"])


def test_without_the_options_the_plugin_adds_nothing(pytester):
    pytester.makepyfile(test_plain="def test_ok():\n    assert 1 + 1 == 2\n")
    r = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    r.assert_outcomes(passed=1)


def test_the_named_items_only_not_the_projects_suite(pytester):
    """In a project's root, --mathcheck-derivations/--mathcheck-from collect what they name; the
    project's own tests run only when their paths are named too."""
    pytester.makepyfile(test_project="def test_a():\n    pass\n\ndef test_b():\n    pass\n")
    pytester.makefile(".derivation", notes="## twice\n  x + x\n= 2*x\n\n## square\n  (x + 1)^2\n= x^2 + 2*x + 1\n")
    r = pytester.runpytest_subprocess(
        "--mathcheck-derivations", "notes.derivation", "--collect-only", "-q", "-p", "no:cacheprovider"
    )
    out = r.stdout.str()
    assert "2 tests collected" in out and "test_project" not in out
    r = pytester.runpytest_subprocess("--mathcheck-derivations", "notes.derivation", "-p", "no:cacheprovider")
    r.assert_outcomes(passed=2)
    r = pytester.runpytest_subprocess(
        "test_project.py", "--mathcheck-derivations", "notes.derivation", "-p", "no:cacheprovider"
    )
    r.assert_outcomes(passed=4)


def test_mathcheck_from_in_a_projects_root_collects_the_named_claims_only(pytester):
    pytester.makepyfile(test_project="def test_a():\n    pass\n", my_claims=FALSE_CLAIM)
    r = pytester.runpytest_subprocess(
        "--mathcheck-from", "my_claims.py", "--collect-only", "-q", "-p", "no:cacheprovider"
    )
    listed = [x for x in r.stdout.lines if x.startswith("mathcheck::")]
    assert listed and not any("test_project" in x for x in r.stdout.lines)
    assert f"{len(listed)} tests collected" in r.stdout.str()


BELOW_PYTHON = '''
"""A claim whose builder ends the process below Python: no Python frame runs again."""
import ctypes

from mathcheck.registry import claim


@claim(id="user-exits-below", title="exits", section="§9.9", zh="用户", en="user")
def build():
    ctypes.CDLL(None)._exit(0)
'''


def test_a_claim_that_ends_pytest_below_python_is_an_error_not_a_pass(pytester):
    """`ctypes.CDLL(None)._exit(0)` in a builder ends pytest's process with status 0 unless someone
    watches it: the plugin runs the session in a supervised child (procs.supervise), so the run is
    pytest's internal error (3) with one line naming the command. (Under xdist the controller already
    fails the run: it reports the crashed worker.)"""
    pytester.makepyfile(exits_below=BELOW_PYTHON)
    r = pytester.runpytest_subprocess("--mathcheck-from", "exits_below.py", "-p", "no:cacheprovider")
    assert r.ret == 3, (r.ret, r.stdout.str()[-500:], r.stderr.str()[-500:])
    r.stderr.fnmatch_lines(["error: pytest *--mathcheck-from exits_below.py*exit below Python*never a success"])
