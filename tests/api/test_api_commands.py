"""attack, bias-amplification and debias cds: the CLI gives what the API gives (one code
path), and ``--seed`` is honoured and recorded."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import genderscope as gs
from genderscope.cli.app import app
from genderscope.store import Store

sys.path.insert(0, str(Path(__file__).parents[1]))
from tests.transforms.test_attack import _write_fixtures  # noqa: E402

TOY_CAPTIONS = ["a man is cooking in a kitchen", "a woman is cooking in a kitchen",
                "a woman holds a knife in the kitchen", "a man with a knife",
                "the woman is cooking", "a man rides a horse", "a woman rides a horse"]
CORPUS = ["He is a doctor and she is a nurse.", "The king spoke to his son.",
          "My mother called her brother.", "The waiter thanked the actress.",
          "His wife is an engineer.", "The boy helped his aunt.",
          "She met the prince.", "The man asked the woman."]


def _timeless(summary: dict) -> dict:
    """A summary without wall-clock figures (they differ between any two runs)."""
    return {k: (_timeless(v) if isinstance(v, dict) else v) for k, v in summary.items()
            if "second" not in k}


def _cli(*args: str) -> None:
    res = CliRunner().invoke(app, list(args))
    assert res.exit_code == 0, res.output


# -- attack ------------------------------------------------------------------------------
def _attack_api(tmp_path: Path, seed: int, **kw):
    vec, mod, data = _write_fixtures(tmp_path)
    return gs.run("attack", model=f"{mod}:gender_probs", data=data, vectors=str(vec),
                  lm="none", pop_size=4, generations=3, seed=seed, **kw)


def test_attack_cli_is_the_api(tmp_path: Path) -> None:
    vec, mod, data = _write_fixtures(tmp_path)
    _cli("attack", "--classifier", f"{mod}:gender_probs", "--data", str(data), "--vectors",
         str(vec), "--lm", "none", "--pop-size", "4", "--generations", "3", "--seed", "3",
         "--out", str(tmp_path / "cli"), "--no-progress", "--json")
    cli = json.loads((tmp_path / "cli" / "summary.json").read_text())
    api = _attack_api(tmp_path, 3)
    assert _timeless(cli["summary"]) == _timeless(json.loads(api.to_json())["summary"])
    assert cli["metadata"]["seed"] == api.metadata["seed"] == 3


def test_attack_seed_is_honoured_and_recorded(tmp_path: Path) -> None:
    def texts(seed: int) -> list[str]:
        r = _attack_api(tmp_path, seed)
        assert Store().load_run(r.metadata["run_id"]).metadata["seed"] == seed
        return r.items.drop(columns=[c for c in r.items if "second" in c]).to_json()

    first = texts(1)
    assert texts(1) == first
    assert any(texts(s) != first for s in (2, 3, 4, 5))


# -- bias amplification ------------------------------------------------------------------
def test_amplification_cli_is_the_api(tmp_path: Path) -> None:
    (tmp_path / "train.txt").write_text("\n".join(TOY_CAPTIONS) + "\n")
    (tmp_path / "gen.txt").write_text("\n".join(TOY_CAPTIONS[:5]) + "\n")
    (tmp_path / "objs.txt").write_text("cooking\nkitchen\nknife\nhorse\n")
    opts = {"train": tmp_path / "train.txt", "generated": tmp_path / "gen.txt",
            "objects": tmp_path / "objs.txt"}
    _cli("run", "bias-amplification", *[x for k, v in opts.items() for x in (f"--{k}", str(v))],
         "--seed", "5", "--out", str(tmp_path / "cli"), "--json")
    cli = json.loads((tmp_path / "cli" / "summary.json").read_text())
    api = gs.run("bias-amplification", out=tmp_path / "api", seed=5, **opts)
    assert cli["summary"] == json.loads(api.to_json())["summary"]
    assert cli["metadata"]["seed"] == 5
    for folder in ("cli", "api"):  # the figure is the API's too
        assert (tmp_path / folder / "amplification.png").stat().st_size > 0


def test_amplification_seed_is_honoured_and_recorded(data_dir: Path) -> None:
    ratios = data_dir / "reducingbias" / "COCO_gender_ratio_dev_res.csv"

    def ci(seed: int) -> tuple[float, float]:
        r = gs.run("bias-amplification", ratios=ratios, seed=seed)
        assert Store().load_run(r.metadata["run_id"]).metadata["seed"] == seed
        m = r.summary["mean_bias_amplification"]
        return m["ci_low"], m["ci_high"]

    assert ci(0) == ci(0)
    assert ci(0) != ci(1)


# -- debias cds --------------------------------------------------------------------------
def _weights(folder: Path) -> bytes:
    from safetensors.numpy import load_file

    tensors = load_file(folder / "model.safetensors")
    return b"".join(tensors[k].tobytes() for k in sorted(tensors))


def _cds_api(model: Path, corpus: Path, out: Path, seed: int) -> dict:
    return gs.debias(model, corpus, out, mode="cds", epochs=1, max_steps=3, lr=1e-3,
                     seed=seed, names=False)


@pytest.mark.slow
def test_debias_cli_is_the_api(tiny_bert_dir: Path, tmp_path: Path) -> None:
    corpus = tmp_path / "c.txt"
    corpus.write_text("\n".join(CORPUS) + "\n")
    _cli("debias", "cds", "--model", str(tiny_bert_dir), "--corpus", str(corpus), "--out",
         str(tmp_path / "cli"), "--epochs", "1", "--max-steps", "3", "--lr", "1e-3",
         "--seed", "7", "--no-names", "--no-progress")
    api = _cds_api(tiny_bert_dir, corpus, tmp_path / "api", 7)
    cli = json.loads((tmp_path / "cli" / "manifest.json").read_text())
    for key in ("seed", "params", "data", "steps", "loss_first_10pct", "loss_last_10pct"):
        assert cli[key] == json.loads(json.dumps(api[key])), key
    assert (tmp_path / "cli" / "training_corpus.jsonl").read_text() == \
        (tmp_path / "api" / "training_corpus.jsonl").read_text()
    assert _weights(tmp_path / "cli") == _weights(tmp_path / "api")


@pytest.mark.slow
def test_debias_seed_is_honoured_and_recorded(tiny_bert_dir: Path, tmp_path: Path) -> None:
    corpus = tmp_path / "c.txt"
    corpus.write_text("\n".join(CORPUS) + "\n")

    def train(seed: int, name: str) -> tuple[str, bytes]:
        out = tmp_path / name
        manifest = _cds_api(tiny_bert_dir, corpus, out, seed)
        recorded = json.loads((out / "manifest.json").read_text())
        assert recorded["seed"] == seed and manifest["seed"] == seed
        assert recorded["data"]["substitution"]["seed"] == seed
        return (out / "training_corpus.jsonl").read_text(), _weights(out)

    a, b, c = train(1, "a"), train(1, "b"), train(2, "c")
    assert a == b
    assert a[0] != c[0]  # another draw of the documents to swap
    assert a[1] != c[1]


def test_debias_is_public_and_refuses_bad_input(tmp_path: Path) -> None:
    assert "debias" in gs.__all__
    with pytest.raises(gs_errors().GenderscopeError, match="--mode"):
        gs.debias("unused", tmp_path / "c.txt", tmp_path / "out", mode="bogus")
    assert not (tmp_path / "out").exists()


def gs_errors():
    import genderscope.errors

    return genderscope.errors
