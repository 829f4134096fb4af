"""Issue 24: the local Ray instance a sweep starts refuses clients without its token.

Ray 2.60 listens on every interface whatever node address it is given (its GCS even
advertises the machine's external address), so the protection is Ray's token
authentication with a fresh random token per sweep (``sweep/driver.py: start_ray``).
This starts a real local instance in a child process and connects to it from two
more: without the token (refused) and with it (accepted)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("ray")

pytestmark = pytest.mark.slow

SERVER = textwrap.dedent("""
    import json, os, subprocess, sys
    from genderscope.sweep import driver

    assert driver.start_ray(None, 1)
    import ray

    addr = ray.get_runtime_context().gcs_address
    client = ("import ray, sys; ray.init(address=sys.argv[1], logging_level='ERROR', "
              "log_to_driver=False); print('CONNECTED')")
    plain = {k: v for k, v in os.environ.items() if not k.startswith("RAY_AUTH")}
    seen = {"token_len": len(os.environ.get("RAY_AUTH_TOKEN", "")),
            "mode": os.environ.get("RAY_AUTH_MODE")}
    for name, env in (("without", plain), ("with", dict(os.environ))):
        done = subprocess.run([sys.executable, "-c", client, addr], env=env,
                              capture_output=True, text=True, timeout=120)
        seen[name] = done.returncode == 0 and "CONNECTED" in done.stdout
    ray.shutdown()
    driver.forget_ray_token()
    seen["left"] = [k for k in os.environ if k.startswith("RAY_AUTH")]
    print("SEEN " + json.dumps(seen))
""")


def test_local_ray_refuses_a_client_without_its_token(tmp_path) -> None:
    env = {k: v for k, v in __import__("os").environ.items() if not k.startswith("RAY_")}
    done = subprocess.run([sys.executable, "-c", SERVER], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    lines = [x for x in done.stdout.splitlines() if x.startswith("SEEN ")]
    assert lines, done.stderr[-3000:]
    seen = json.loads(lines[-1][5:])
    assert seen["mode"] == "token" and seen["token_len"] == 64
    assert seen["without"] is False, "a client without the token reached the local Ray"
    assert seen["with"] is True, "the sweep's own token must be accepted"
    assert seen["left"] == []  # the token does not outlive the sweep
