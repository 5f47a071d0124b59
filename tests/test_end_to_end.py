import json
import subprocess
import sys

import pytest


def run(*args):
    return subprocess.run([sys.executable, "-m", "mathcheck", *args], capture_output=True, text=True)


@pytest.mark.slow
def test_prove_all_end_to_end():
    r = run("prove", "--all", "--json")
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    claims = json.loads(r.stdout)["claims"]
    assert claims and all(c["status"] == "proved" for c in claims)
    assert r.stderr == ""


def test_unknown_claim_end_to_end_has_no_traceback():
    r = run("prove", "no-such-claim")
    assert r.returncode == 2
    assert r.stdout == ""
    assert r.stderr.strip().count("\n") == 0
    assert "Traceback" not in r.stderr
