"""Fine-tuning checkpoints that can be resumed without running code from the output folder.

A checkpoint ``OUT/checkpoints/step-N/`` holds:

- ``model.safetensors`` (+ ``config.json``): the weights, via ``save_pretrained``;
- ``trainer.safetensors``: every tensor of the optimizer and scheduler state and the
  torch RNG state;
- ``trainer.json``: the rest of that state (hyper-parameters, step counts) as plain
  JSON, tensors replaced by ``{"tensor": name}`` references;
- ``state.json``: the step reached and the losses so far.

``OUT/checkpoints/run.json`` holds the run identity (model, corpus hash, parameters).
Neither format can execute code when read (no pickle, unlike ``torch.load`` with
``weights_only=False``), and a checkpoint is resumed only when ``run.json`` exists
and equals the identity of the run being started.
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from typing import Any

import torch

from genderscope.errors import GenderscopeError
from genderscope.results import to_json

CHECKPOINTS = "checkpoints"
RUN_FILE = "run.json"
TRAINER_TENSORS = "trainer.safetensors"
TRAINER_JSON = "trainer.json"
STATE_FILE = "state.json"


# -- tensors + JSON codec ------------------------------------------------------------------
def _encode(value: Any, tensors: dict[str, torch.Tensor]) -> Any:
    """``value`` as plain JSON; each tensor moved into ``tensors`` and referenced by name."""
    if isinstance(value, torch.Tensor):
        name = f"t{len(tensors)}"
        tensors[name] = value.detach().cpu().contiguous().clone()
        return {"tensor": name}
    if isinstance(value, dict):
        for k in value:
            if not isinstance(k, (str, int)) or isinstance(k, bool):
                raise TypeError(f"checkpoint state key {k!r} is not a string or integer")
        return {"dict": [[k, _encode(v, tensors)] for k, v in value.items()]}
    if isinstance(value, tuple):
        return {"tuple": [_encode(v, tensors) for v in value]}
    if isinstance(value, list):
        return {"list": [_encode(v, tensors) for v in value]}
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"float": repr(value)}
    raise TypeError(f"checkpoint state holds a {type(value).__name__}, which is not saved")


def _decode(value: Any, tensors: dict[str, torch.Tensor], where: Path) -> Any:
    """Inverse of :func:`_encode`; anything but the forms it writes is refused."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, dict) and len(value) == 1:
        (tag, body), = value.items()
        if tag == "tensor" and isinstance(body, str) and body in tensors:
            return tensors[body]
        if tag == "float" and body in ("inf", "-inf", "nan"):
            return float(body)
        if tag in ("list", "tuple") and isinstance(body, list):
            items = [_decode(v, tensors, where) for v in body]
            return items if tag == "list" else tuple(items)
        if tag == "dict" and isinstance(body, list) and all(
                isinstance(p, list) and len(p) == 2 and isinstance(p[0], (str, int))
                for p in body):
            return {k: _decode(v, tensors, where) for k, v in body}
    raise GenderscopeError(f"{where}: not a genderscope checkpoint file (unexpected "
                           f"{str(value)[:60]!r}); pass --overwrite to start over")


def save_trainer_state(folder: Path, state: dict[str, Any]) -> None:
    """Write ``state`` (nested dicts/lists/tuples of tensors and plain values) as
    ``trainer.safetensors`` + ``trainer.json`` in ``folder``."""
    from safetensors.torch import save_file

    tensors: dict[str, torch.Tensor] = {}
    encoded = _encode(state, tensors)
    save_file(tensors, str(folder / TRAINER_TENSORS))
    (folder / TRAINER_JSON).write_text(json.dumps(encoded, allow_nan=False), encoding="utf-8")


def load_trainer_state(folder: Path) -> dict[str, Any]:
    """Read what :func:`save_trainer_state` wrote; a malformed file is a one-line error."""
    from safetensors import SafetensorError
    from safetensors.torch import load_file

    try:
        tensors = load_file(str(folder / TRAINER_TENSORS))
    except (SafetensorError, OSError, ValueError) as exc:
        raise GenderscopeError(f"{folder / TRAINER_TENSORS}: cannot read the checkpoint "
                               f"({exc}); pass --overwrite to start over") from None
    state = _decode(read_json(folder / TRAINER_JSON), tensors, folder / TRAINER_JSON)
    if not isinstance(state, dict):
        raise GenderscopeError(f"{folder / TRAINER_JSON}: not a genderscope checkpoint file; "
                               "pass --overwrite to start over")
    return state


def read_json(path: Path) -> Any:
    """A JSON file of a checkpoint; missing or malformed is a one-line error."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise GenderscopeError(f"{path}: missing from the checkpoint; pass --overwrite to "
                               "start over") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise GenderscopeError(f"{path}: not a readable checkpoint file ({exc}); pass "
                               "--overwrite to start over") from None


# -- checkpoints of a run --------------------------------------------------------------------
def latest_checkpoint(out: Path) -> Path | None:
    """The ``step-N`` folder with the highest N that has a ``state.json``, or None."""
    folder = out / CHECKPOINTS
    if not folder.is_dir():
        return None
    steps = sorted((int(p.name.split("-")[1]), p) for p in folder.glob("step-*")
                   if p.name.split("-")[1].isdigit() and (p / STATE_FILE).exists())
    return steps[-1][1] if steps else None


def check_same_run(out: Path, identity: dict[str, Any]) -> None:
    """Refuse to resume checkpoints that this run did not write: ``run.json`` must exist
    and equal ``identity`` (model, corpus hash, parameters)."""
    path = out / CHECKPOINTS / RUN_FILE
    if not path.is_file():
        raise GenderscopeError(f"{out / CHECKPOINTS} has no {RUN_FILE}, so nothing says which "
                               "run wrote it; refusing to resume from it (pass --overwrite to "
                               "start over)")
    saved = read_json(path)
    if saved == identity:
        return
    if not isinstance(saved, dict):
        saved = {}
    diff = sorted(k for k in set(saved) | set(identity) if saved.get(k) != identity.get(k))
    if "params" in diff:
        p0 = saved.get("params") if isinstance(saved.get("params"), dict) else {}
        p1 = identity["params"]
        diff = [d for d in diff if d != "params"] + sorted(
            f"{k} ({p0.get(k)!r} then, {p1.get(k)!r} now)" for k in set(p0) | set(p1)
            if p0.get(k) != p1.get(k))
    raise GenderscopeError(f"{out} holds an unfinished run with other settings "
                           f"({', '.join(diff)}); rerun it as it was, or pass --overwrite "
                           "to start over")


def save_checkpoint(out: Path, step: int, model: Any, optim: Any, sched: Any,
                    losses: list[float], identity: dict[str, Any]) -> None:
    """Write ``OUT/checkpoints/step-<step>`` (via a ``.tmp`` folder renamed at the end) and
    drop older steps."""
    (out / CHECKPOINTS).mkdir(parents=True, exist_ok=True)
    (out / CHECKPOINTS / RUN_FILE).write_text(to_json(identity, indent=2), encoding="utf-8")
    folder = out / CHECKPOINTS / f"step-{step}"
    tmp = folder.with_name(folder.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    model.save_pretrained(tmp, safe_serialization=True)
    save_trainer_state(tmp, {"optimizer": optim.state_dict(), "scheduler": sched.state_dict(),
                             "torch_rng": torch.get_rng_state()})
    (tmp / STATE_FILE).write_text(json.dumps({"step": step, "losses": losses}))
    shutil.rmtree(folder, ignore_errors=True)  # a checkpoint of the same step is replaced
    tmp.rename(folder)
    for old in (out / CHECKPOINTS).glob("step-*"):
        if old != folder:
            shutil.rmtree(old, ignore_errors=True)


def resume_checkpoint(folder: Path, model: Any, optim: Any, sched: Any,
                      n_steps: int) -> tuple[int, list[float]]:
    """Load weights, optimizer, scheduler and RNG state from ``folder``; returns the step
    reached and the losses so far. Reads only safetensors and JSON."""
    from safetensors import SafetensorError
    from safetensors.torch import load_file

    state = read_json(folder / STATE_FILE)
    step = state.get("step") if isinstance(state, dict) else None
    losses = state.get("losses") if isinstance(state, dict) else None
    if (not isinstance(step, int) or isinstance(step, bool) or not 0 < step < n_steps
            or not isinstance(losses, list) or len(losses) != step
            or not all(isinstance(x, (int, float)) or x is None for x in losses)):
        raise GenderscopeError(f"{folder / STATE_FILE}: step and losses do not fit this run "
                               f"of {n_steps} steps; pass --overwrite to start over")
    trainer = load_trainer_state(folder)
    try:
        weights = load_file(str(folder / "model.safetensors"))
    except (SafetensorError, OSError, ValueError) as exc:
        raise GenderscopeError(f"{folder / 'model.safetensors'}: cannot read the checkpoint "
                               f"({exc}); pass --overwrite to start over") from None
    try:
        model.load_state_dict(weights, strict=False)
        optim.load_state_dict(trainer["optimizer"])
        sched.load_state_dict(trainer["scheduler"])
        torch.set_rng_state(trainer["torch_rng"])
    except (KeyError, TypeError, ValueError, RuntimeError) as exc:
        raise GenderscopeError(f"{folder}: checkpoint does not match the model or optimizer "
                               f"({str(exc).splitlines()[0][:120]}); pass --overwrite to "
                               "start over") from None
    return step, [float("nan") if x is None else float(x) for x in losses]
