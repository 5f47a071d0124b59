import subprocess
import sys


def run(*args):
    return subprocess.run([sys.executable, "-m", "mathcheck", *args], capture_output=True, text=True)


def test_unknown_claim_end_to_end_has_no_traceback():
    r = run("prove", "no-such-claim")
    assert r.returncode == 2
    assert r.stdout == ""
    assert r.stderr.strip().count("\n") == 0
    assert "Traceback" not in r.stderr
