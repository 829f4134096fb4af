"""Issue 24, item 3: sweep requests that would wait forever, and bad sweep files, are refused
in one line before Ray starts (Ray is replaced by a tripwire here: reaching it fails)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_main import run_main

pytest.importorskip("ray")

from genderscope.sweep import driver  # noqa: E402

REAL_START_RAY = driver.start_ray


@pytest.fixture(autouse=True)
def no_ray(monkeypatch) -> None:
    def tripwire(*a, **k):
        raise AssertionError("Ray was started")

    monkeypatch.setattr(driver, "start_ray", tripwire)
    monkeypatch.setattr(driver, "local_gpus", lambda: 0, raising=False)


def _sweep(*args: str) -> tuple[int, str]:
    code, err, _ = run_main("sweep", *args)
    return code, err.strip()


BASE = ("--model", "smollm2", "--measure", "crows-pairs", "--no-progress")


@pytest.mark.parametrize(("extra", "expect"), [
    (("--num-cpus", "0"), "--num-cpus must be at least 1, got 0"),
    (("--num-cpus", str(10**20)), "--num-cpus must be at most 65,536, got 1000"),
    (("--cpus-per-job", "64", "--num-cpus", "2"), "asks for 64 CPUs"),
    (("--gpus-per-job", "1"), "asks for 1 GPUs but this machine has 0"),
    (("--cpus-per-job", "nan"), "--cpus-per-job must be > 0"),
    (("--gpus-per-job", "inf"), "--gpus-per-job >= 0"),
])
def test_unsatisfiable_resources_refused_before_ray(tmp_path, monkeypatch, extra,
                                                    expect) -> None:
    monkeypatch.chdir(tmp_path)
    code, err = _sweep(*BASE, "--out", str(tmp_path / "s.html"), *extra)
    assert code == 2 and err.startswith("error: ") and expect in err, err
    assert len(err.splitlines()) == 1


@pytest.mark.parametrize(("text", "expect"), [
    ("models: [smollm2]\nmeasures: [crows-pairs]\nresources: {cpus_per_job: .nan}\n",
     "finite"),
    ("models: [smollm2]\nmeasures: [crows-pairs]\nresources: {cpus_per_job: -1}\n", ">= 0"),
    ("models: [smollm2]\nmeasures: [crows-pairs]\nresources: {gpus_per_job: .inf}\n",
     "finite"),
    ("models: [{model: smollm2, cpus: .nan}]\nmeasures: [crows-pairs]\n", "finite"),
    ("models: [smollm2]\nmeasures: [crows-pairs]\nmodels: [gemma3-270m]\n", "given twice"),
    ("models: [smollm2]\nmeasures: [crows-pairs]\nsettings: {out: null}\n", "must be a path"),
    ("models: [smollm2]\nmeasures: [crows-pairs]\nsettings: {seed: -3}\n",
     "seed must be at least 0, got -3"),
    ("models: " + "[" * 5000 + "]" * 5000 + "\nmeasures: [crows-pairs]\n", "sweep file"),
], ids=["nan", "negative", "inf", "model-nan", "duplicate-key", "out-null", "seed-negative",
        "deep-nesting"])
def test_bad_sweep_file_refused_before_ray(tmp_path, monkeypatch, text, expect) -> None:
    monkeypatch.chdir(tmp_path)
    f = tmp_path / "sweep.yaml"
    f.write_text(text)
    code, err = _sweep(str(f), "--no-progress")
    assert code == 2 and err.startswith("error: ") and expect in err, err
    assert len(err.splitlines()) == 1
    assert sorted(p.name for p in Path(tmp_path).iterdir()) == ["sweep.yaml"]


def test_local_ray_advertises_localhost_and_needs_a_token(monkeypatch) -> None:
    import os

    seen: dict[str, object] = {}

    class FakeRay:
        @staticmethod
        def is_initialized() -> bool:
            return False

        @staticmethod
        def init(**kwargs: object) -> None:
            seen.update(kwargs, mode=os.environ.get("RAY_AUTH_MODE"),
                        token=os.environ.get("RAY_AUTH_TOKEN"))

    monkeypatch.setattr(driver, "_ray", lambda: FakeRay)
    monkeypatch.delenv("RAY_AUTH_MODE", raising=False)
    monkeypatch.delenv("RAY_AUTH_TOKEN", raising=False)
    assert REAL_START_RAY(None, 2) is True
    assert seen["_node_ip_address"] == "127.0.0.1" and seen["num_cpus"] == 2
    assert seen["mode"] == "token" and len(str(seen["token"])) == 64
    driver.forget_ray_token()
    assert "RAY_AUTH_MODE" not in os.environ and "RAY_AUTH_TOKEN" not in os.environ
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")  # the user's own choice is kept
    REAL_START_RAY(None, 2)
    assert seen["mode"] == "disabled"


@pytest.mark.parametrize(("in_file", "expect"), [
    (True, "model openai:x: api_key_env GS_UNSET_KEY: the variable is not set"),
    (False, "model openai:x: --api-key-env GS_UNSET_KEY: the variable is not set"),
], ids=["file", "flag"])
def test_unset_api_key_env_named_as_given(tmp_path, monkeypatch, in_file, expect) -> None:
    """An unset ``api_key_env`` is refused naming the model, and the file's key when the
    setting came from the sweep file (not a ``--api-key-env`` the user never typed)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GS_UNSET_KEY", raising=False)
    url = "http://127.0.0.1:9/v1"
    if in_file:
        f = tmp_path / "sweep.yaml"
        f.write_text(f"models: [{{model: openai:x, base_url: {url}, "
                     "api_key_env: GS_UNSET_KEY}]\nmeasures: [bbq]\n")
        args: tuple[str, ...] = (str(f),)
    else:
        args = ("--model", "openai:x", "--base-url", url, "--api-key-env", "GS_UNSET_KEY",
                "--measure", "bbq")
    code, err = _sweep(*args, "--out", str(tmp_path / "out"), "--no-progress")
    assert code == 2 and err.startswith("error: ") and expect in err, err
    assert len(err.splitlines()) == 1
    assert ("--api-key-env" in err) is not in_file
