"""Fidelity of INLP, SentenceDebias and Self-Debias to bias-bench (Meade et al. 2022).

Each reference below is written here, independently, from reading bias-bench's code
(``debias/inlp/context_nullspace_projection.py`` + ``debias.py``,
``debias/sentence_debias.py``, ``model/models.py`` hooks, ``debias/self_debias/
modeling.py`` + ``generation.py``): one sentence at a time, bias-bench's own padding
tricks, numpy/torch. genderscope's results must equal them to 1e-5 on the same inputs.

Models: a BERT of bert-base width (768) with the real bert-base-uncased vocabulary and
2 layers (cheap; the projection's shape and the tokenization are bert-base's), and the
tiny GPT-2 of :mod:`genderscope.models.testing`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import scipy.linalg
import torch
from sklearn.decomposition import PCA
from sklearn.model_selection import train_test_split
from sklearn.svm import LinearSVC

TOL = 1e-5


@pytest.fixture(scope="module")
def bert768_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from transformers import BertConfig, BertForMaskedLM, BertTokenizerFast

    from genderscope.models.testing import bert_vocab_path

    folder = tmp_path_factory.mktemp("bert768")
    tok = BertTokenizerFast(vocab=str(bert_vocab_path()), do_lower_case=True)
    assert len(tok) == 30522
    torch.manual_seed(3)
    BertForMaskedLM(BertConfig(num_hidden_layers=1)).eval().save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder


@pytest.fixture()
def gap_sentences():
    from genderscope.datasets.corpus import load_corpus
    from genderscope.lm_debias.attribute_data import inlp_sentences, load_word_pairs

    pairs, _ = load_word_pairs()
    docs = load_corpus("gap", limit=120)
    return docs, pairs, inlp_sentences(docs.texts, pairs, n_per_class=40, seed=0)


def _ref_mean_pooled(model_dir: Path, sentences: list[str]) -> np.ndarray:
    """bias-bench's _extract_gender_features: each sentence alone, special tokens added,
    mean over every position of BertModel's last_hidden_state."""
    from transformers import AutoTokenizer, BertForMaskedLM

    tok = AutoTokenizer.from_pretrained(model_dir)
    bert = BertForMaskedLM.from_pretrained(model_dir).eval().bert
    rows = []
    with torch.no_grad():
        for s in sentences:
            enc = tok(s, add_special_tokens=True, truncation=True, return_tensors="pt")
            rows.append(bert(**enc)["last_hidden_state"].mean(dim=1).squeeze().numpy())
    return np.array(rows, dtype=np.float64)


def _ref_inlp(male, female, neutral, n_classifiers: int) -> np.ndarray:
    """bias-bench's _split_gender_dataset + get_debiasing_projection (autoregressive,
    min_accuracy 0, no dropout), with LinearSVC(fit_intercept=False, dual=False,
    random_state=0). One BLAS thread, as genderscope: LinearSVC amplifies the last-bit
    differences of a multi-threaded SVD to ~5e-5 in P."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        return _ref_inlp_loop(male, female, neutral, n_classifiers)


def _ref_inlp_loop(male, female, neutral, n_classifiers: int) -> np.ndarray:
    x = np.concatenate((male, female, neutral))
    y = np.concatenate((np.ones(len(male), int), np.zeros(len(female), int),
                        -np.ones(len(neutral), int)))
    x_a, _, y_a, _ = train_test_split(x, y, test_size=0.3, random_state=0)
    x_tr, _, y_tr, _ = train_test_split(x_a, y_a, test_size=0.3, random_state=0)

    def rowspace(w):
        b = scipy.linalg.orth(w.T)
        return b.dot(b.T)

    eye = np.eye(x.shape[1])
    projs, cur = [], x_tr.copy()
    for _ in range(n_classifiers):
        svc = LinearSVC(fit_intercept=False, class_weight=None, dual=False, random_state=0)
        svc.fit(cur, y_tr)
        projs.append(rowspace(np.atleast_2d(svc.coef_)))
        p = eye - rowspace(np.sum(projs, axis=0))
        cur = p.dot(x_tr.T).T
    return eye - rowspace(np.sum(projs, axis=0))


@pytest.mark.slow
def test_inlp_projection_equals_bias_bench_reimplementation(bert768_dir, gap_sentences,
                                                           tmp_path):
    """Same features in, same P out; and genderscope's batched features equal bias-bench's
    one-sentence-at-a-time ones. (End to end the two P differ by ~1e-2: with 84 training
    vectors of 768 dimensions LinearSVC's solution moves that much when float32 features
    move by 1e-6, in bias-bench's own runs too, e.g. CPU vs GPU.)"""
    from genderscope.lm_debias.estimate import debias_lm
    from genderscope.lm_debias.subspace import inlp
    from genderscope.models.debias_folder import load_projection, read_manifest
    from genderscope.models.loading import load_lm
    from genderscope.models.projection import sentence_features

    docs, pairs, sents = gap_sentences
    groups = (sents.male, sents.female, sents.neutral)
    assert [len(g) for g in groups] == [40, 40, 40]
    ref_feats = [_ref_mean_pooled(bert768_dir, g) for g in groups]
    lm = load_lm(bert768_dir)
    # as debias_lm encodes them: all together, in batches of 32
    our_feats = np.split(sentence_features(lm, [t for g in groups for t in g]), [40, 80])
    for a, b in zip(our_feats, ref_feats, strict=True):
        assert a.shape == (40, 768) and np.abs(a - b).max() < TOL
    ref = _ref_inlp(*ref_feats, n_classifiers=4)
    assert np.abs(inlp(*ref_feats, n_classifiers=4).projection - ref).max() < TOL
    # a projection: idempotent, symmetric, rank 768 - (classifiers x 3 classes)
    assert np.abs(ref @ ref - ref).max() < 1e-8 and round(np.trace(ref)) == 768 - 4 * 3
    # the folder holds the projection estimated from genderscope's own features
    out = tmp_path / "inlp"
    debias_lm("inlp", bert768_dir, out, limit=120, n_per_class=40, n_classifiers=4, seed=0)
    manifest = read_manifest(out)
    assert manifest["data"]["sentences"] == {"male": 40, "female": 40, "neutral": 40}
    assert manifest["estimate"]["rank_removed"] == 12
    saved = load_projection(out, manifest).astype(np.float64)
    assert np.abs(saved - inlp(*our_feats, n_classifiers=4).projection).max() < 1e-6


def _ref_sentence_debias_direction(model_dir: Path, pairs: list[tuple[str, str]]) -> np.ndarray:
    """bias-bench's compute_gender_subspace: batches of 32 padded to 128 tokens, masked
    mean of last_hidden_state, L2-normalised, pair means removed, first PCA component."""
    from transformers import AutoTokenizer, BertForMaskedLM

    tok = AutoTokenizer.from_pretrained(model_dir)
    bert = BertForMaskedLM.from_pretrained(model_dir).eval().bert
    ms, fs = [], []
    for i in range(len(pairs) // 32):
        chunk = pairs[32 * i:32 * (i + 1)]
        embs = []
        for side in (0, 1):
            enc = tok([p[side] for p in chunk], return_tensors="pt", truncation=True,
                      padding="max_length", max_length=128)
            with torch.no_grad():
                h = bert(input_ids=enc["input_ids"],
                         attention_mask=enc["attention_mask"])["last_hidden_state"]
            m = enc["attention_mask"].unsqueeze(-1)
            e = (h * m).sum(dim=1) / enc["attention_mask"].sum(dim=1, keepdim=True)
            embs.append((e / torch.norm(e, dim=-1, keepdim=True)).numpy())
        ms.append(embs[0])
        fs.append(embs[1])
    m_all, f_all = np.concatenate(ms), np.concatenate(fs)
    mu = (m_all + f_all) / 2.0
    pca = PCA(n_components=1)
    pca.fit(np.concatenate([m_all - mu, f_all - mu]))
    return pca.components_[0]


@pytest.mark.slow
def test_sentence_debias_projection_equals_bias_bench_reimplementation(bert768_dir, tmp_path):
    from genderscope.lm_debias.estimate import debias_lm
    from genderscope.models.debias_folder import load_projection, read_manifest

    out = tmp_path / "sd"
    debias_lm("sentence-debias", bert768_dir, out, limit=60, max_pairs=64)
    manifest = read_manifest(out)
    assert manifest["data"]["counterfactual_pairs"] == 64
    ours = load_projection(out, manifest).astype(np.float64)

    from genderscope.datasets.corpus import load_corpus
    from genderscope.lm_debias.attribute_data import counterfactual_pairs, load_word_pairs

    pairs = counterfactual_pairs(load_corpus("gap", limit=60).texts, load_word_pairs()[0],
                                 limit=64)
    v = _ref_sentence_debias_direction(bert768_dir, pairs)
    ref = np.eye(768) - np.outer(v, v) / v.dot(v)
    assert np.abs(ours - ref).max() < TOL


@pytest.mark.slow
def test_projection_hook_equals_bias_bench_hook(bert768_dir, tmp_path):
    """Scores of the debiased adapter equal BertForMaskedLM with bias-bench's INLP hook
    (x[:, t] = P x[:, t] for every position, on the body's output)."""
    from transformers import AutoTokenizer, BertForMaskedLM

    from genderscope.lm_debias.estimate import debias_lm
    from genderscope.models.debias_folder import load_projection, read_manifest
    from genderscope.models.loading import load_lm

    out = tmp_path / "inlp"
    debias_lm("inlp", bert768_dir, out, limit=60, n_per_class=20, n_classifiers=2)
    proj = torch.from_numpy(load_projection(out, read_manifest(out)))
    ref_model = BertForMaskedLM.from_pretrained(bert768_dir).eval()

    def hook(module, inputs, output):
        x = output["last_hidden_state"]
        for t in range(x.size(1)):
            x[:, t] = torch.matmul(proj, x[:, t].T).T
        output["last_hidden_state"] = x
        return output

    ref_model.bert.register_forward_hook(hook)
    tok = AutoTokenizer.from_pretrained(bert768_dir)
    sentences = ["the nurse said that she was tired .", "my father is an engineer ."]
    ours = load_lm(out).pseudo_log_likelihood(sentences)
    plain = load_lm(bert768_dir).pseudo_log_likelihood(sentences)
    for s, got, base in zip(sentences, ours, plain, strict=True):
        ids = tok(s, return_tensors="pt")["input_ids"][0]
        total = 0.0
        for i in range(1, len(ids) - 1):
            masked = ids.clone()
            masked[i] = tok.mask_token_id
            with torch.no_grad():
                logits = ref_model(input_ids=masked[None])["logits"][0, i]
            total += float(torch.log_softmax(logits, -1)[ids[i]])
        assert abs(got.total - total) < 1e-4 * max(1.0, abs(total))
        assert abs(got.total - base.total) > 1e-3  # the projection changes the scores


# -- Self-Debias -------------------------------------------------------------------------
def _ref_self_debias_token_logprobs(model_dir: Path, text: str, prefixes: list[str],
                                    decay: float = 50.0, eps: float = 0.01) -> np.ndarray:
    """bias-bench's GPT2Wrapper.compute_loss_self_debiasing + SelfDebiasingLogitsProcessor:
    rows ["" + text, prefix_k + text], prefixes left-padded (attention mask flipped, ids
    rolled), position ids from the mask; returns log p~(w_t | w_<t) for t >= 1."""
    from transformers import AutoTokenizer, GPT2LMHeadModel

    tok = AutoTokenizer.from_pretrained(model_dir)
    model = GPT2LMHeadModel.from_pretrained(model_dir).eval()
    text_ids = torch.tensor(tok(text)["input_ids"])[None]
    pre = tok([""] + prefixes, padding=True, return_tensors="pt")
    pre["attention_mask"] = torch.flip(pre["attention_mask"], dims=[1])
    shifts = pre["attention_mask"].shape[-1] - pre["attention_mask"].sum(dim=-1)
    for b in range(pre["input_ids"].shape[0]):
        pre["input_ids"][b] = pre["input_ids"][b].roll(int(shifts[b]))
    rep = text_ids.repeat(len(prefixes) + 1, 1)
    mask = torch.cat([pre["attention_mask"], torch.ones_like(rep)], dim=-1)
    ids = torch.cat([pre["input_ids"], rep], dim=-1)
    pos = mask.long().cumsum(-1) - 1
    pos.masked_fill_(mask == 0, 1)
    with torch.no_grad():
        logits = model(input_ids=ids, attention_mask=mask, position_ids=pos)["logits"]
    width = pre["input_ids"].shape[1]
    out = []
    for t in range(1, text_ids.shape[1]):
        col = logits[:, width + t - 1, :]
        p_reg = col[0].softmax(-1)
        p_b = torch.stack([col[k].softmax(-1) for k in range(1, len(prefixes) + 1)]).max(0)[0]
        decay_mask = torch.max(torch.exp(-torch.max(p_b - p_reg, torch.tensor([0.0]))
                                         * decay), torch.tensor([eps]))
        p = p_reg * decay_mask
        p = p / p.sum(-1)
        out.append(float(torch.log(p)[text_ids[0, width * 0 + t]]))
    return np.array(out)


@pytest.mark.parametrize("prefixes", [
    ["The following text discriminates against people because of their gender: "],
    ["he is sexist: ", "The following text is rude and hateful: "],
])
def test_self_debias_distributions_equal_bias_bench_reimplementation(tiny_gpt2_dir, tmp_path,
                                                                    prefixes):
    from genderscope.lm_debias.estimate import debias_lm
    from genderscope.models.loading import load_lm

    out = tmp_path / "sd"
    debias_lm("self-debias", tiny_gpt2_dir, out, prefixes=prefixes, start_token="none")
    lm = load_lm(out, start_token="none")
    texts = ["the mechanic fixed the car and he was paid", "her mother works as a teacher"]
    got = lm.log_likelihood(texts)  # one batch: both texts padded together
    plain = load_lm(tiny_gpt2_dir, start_token="none").log_likelihood(texts)
    for text, score, base in zip(texts, got, plain, strict=True):
        ref = _ref_self_debias_token_logprobs(tiny_gpt2_dir, text, prefixes)
        assert np.abs(np.array(score.token_logprobs) - ref).max() < TOL
        assert np.abs(np.array(base.token_logprobs) - ref).max() > 1e-3


def test_self_debias_uses_the_score_cache_and_its_key(tiny_gpt2_dir, tmp_path, store):
    from genderscope.lm_debias.estimate import debias_lm
    from genderscope.models.loading import load_lm

    a, b = tmp_path / "a", tmp_path / "b"
    debias_lm("self-debias", tiny_gpt2_dir, a)
    debias_lm("self-debias", tiny_gpt2_dir, b, decay_constant=10.0)
    texts = ["he is a nurse", "she is a doctor", "he is a nurse"]
    lm = load_lm(a, store=store)
    first = [s.total for s in lm.log_likelihood(texts)]
    n = lm.n_forward
    assert n >= 1
    again = load_lm(a, store=store)  # deferred: answered from the store, nothing loaded
    assert [s.total for s in again.log_likelihood(texts)] == first and not again.loaded
    other = load_lm(b, store=store)
    base = load_lm(tiny_gpt2_dir, store=store)
    fps = {lm.fingerprint, other.fingerprint, base.fingerprint}
    assert len(fps) == 3
    assert [s.total for s in other.log_likelihood(texts)] != first
    one_by_one = [load_lm(a).log_likelihood([t])[0].total for t in texts]
    assert np.allclose(one_by_one, first, atol=1e-4)


# -- Self-Debias on masked LMs and in generation ----------------------------------------------
def _ref_bias_bench_processor(logits: torch.Tensor, decay: float, eps: float) -> torch.Tensor:
    """SelfDebiasingLogitsProcessor on rows [regular, biased_1..K] of one position: the
    regular row's log of the rescaled, renormalised probabilities."""
    p_reg = logits[0].softmax(-1)
    p_b = None
    for row in logits[1:]:
        p_b = row.softmax(-1) if p_b is None else torch.max(p_b, row.softmax(-1))
    decay_mask = torch.max(torch.exp(-torch.max(p_b - p_reg, torch.tensor([0.0])) * decay),
                           torch.tensor([eps]))
    p = p_reg * decay_mask
    return torch.log(p / p.sum(-1))


def _ref_mlm_self_debias(model_dir: Path, masked_ids: list[int], prefixes: list[str],
                         decay: float = 50.0, eps: float = 0.01) -> torch.Tensor:
    """bias-bench's MaskedLMWrapper.get_token_logits_self_debiasing (one masked token):
    prefixes "[CLS] <prefix>" tokenized without special tokens and left-padded, the input
    less its [CLS] appended to each, position ids from the mask (BERT: - 1, RoBERTa:
    + padding_idx); the processor at the masked column; the regular row's log p~."""
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForMaskedLM.from_pretrained(model_dir).eval()
    pre = tok([tok.cls_token] + [" ".join([tok.cls_token, dp]) for dp in prefixes],
              padding=True, return_tensors="pt", add_special_tokens=False)
    pre["attention_mask"] = torch.flip(pre["attention_mask"], dims=[1])
    shifts = pre["attention_mask"].shape[-1] - pre["attention_mask"].sum(dim=-1)
    for b in range(pre["input_ids"].shape[0]):
        pre["input_ids"][b] = pre["input_ids"][b].roll(int(shifts[b]))
    rep = torch.tensor([masked_ids])[:, 1:].repeat(len(prefixes) + 1, 1)
    mask = torch.cat([pre["attention_mask"], torch.ones_like(rep)], dim=-1)
    ids = torch.cat([pre["input_ids"], rep], dim=-1)
    where = ids == tok.mask_token_id
    pos = mask.long().cumsum(-1)
    if model.config.model_type == "roberta":
        pos += model.base_model.embeddings.padding_idx
    else:
        pos -= 1
    pos.masked_fill_(mask == 0, 1)
    with torch.no_grad():
        logits = model(input_ids=ids, attention_mask=mask, position_ids=pos)["logits"]
    col = int(where[0].nonzero()[0, 0])
    assert bool(where[:, col].all())
    return _ref_bias_bench_processor(logits[:, col, :], decay, eps)


@pytest.mark.slow
@pytest.mark.parametrize("which", ["bert768_dir", "tiny_roberta_dir"])
def test_self_debias_masked_lm_equals_bias_bench_reimplementation(which, request, tmp_path):
    """Masked LMs (bert-base width with the real vocabulary; a RoBERTa with byte-level
    BPE): every pseudo-log-likelihood term equals bias-bench's debiased distribution at
    the masked token, for one and for two prefixes."""
    from transformers import AutoTokenizer

    from genderscope.lm_debias.estimate import debias_lm
    from genderscope.models.loading import load_lm

    folder = request.getfixturevalue(which)
    tok = AutoTokenizer.from_pretrained(folder)
    texts = ["the nurse said that she was tired .", "he is a doctor"]
    plain = load_lm(folder).pseudo_log_likelihood(texts)
    # λ 50 (bias-bench's) and a large λ: a random model's near-uniform distributions
    # move little at λ 50, and the reference must differ from the plain model's
    for prefixes, decay in ((["The following text discriminates against people because "
                              "of their gender: "], 50.0),
                            (["he is sexist: ", "The following text is rude: "], 5000.0)):
        out = tmp_path / f"sd{len(prefixes)}"
        debias_lm("self-debias", folder, out, prefixes=prefixes, decay_constant=decay)
        got = load_lm(out).pseudo_log_likelihood(texts)  # both texts in one batch
        for text, score, base in zip(texts, got, plain, strict=True):
            ids = tok(text)["input_ids"]
            ref = []
            for i in range(1, len(ids) - 1):
                masked = list(ids)
                masked[i] = tok.mask_token_id
                ref.append(float(_ref_mlm_self_debias(folder, masked, prefixes,
                                                      decay)[ids[i]]))
            assert np.abs(np.array(score.token_logprobs) - ref).max() < TOL
            if decay > 50:
                assert np.abs(np.array(base.token_logprobs) - ref).max() > 1e-3


def _ref_generate_self_debias(model_dir: Path, text: str, prefixes: list[str], steps: int,
                              decay: float = 50.0, eps: float = 0.01):
    """bias-bench's GPT2Wrapper.generate_self_debiasing, greedy: rows [text,
    prefix_k + text] tokenized together, left-padded (mask flipped, ids rolled), position
    ids from the mask; each step re-runs the whole rows (no cache), debiases the regular
    row and appends its argmax to every row. Returns the log-distributions and tokens."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForCausalLM.from_pretrained(model_dir).eval()
    enc = tok([text] + [dp + text for dp in prefixes], padding=True, return_tensors="pt")
    enc["attention_mask"] = torch.flip(enc["attention_mask"], dims=[1])
    shifts = enc["attention_mask"].shape[-1] - enc["attention_mask"].sum(dim=-1)
    for b in range(enc["input_ids"].shape[0]):
        enc["input_ids"][b] = enc["input_ids"][b].roll(int(shifts[b]))
    ids, mask = enc["input_ids"], enc["attention_mask"]
    dists, tokens = [], []
    for _ in range(steps):
        pos = mask.long().cumsum(-1) - 1
        pos.masked_fill_(mask == 0, 1)
        with torch.no_grad():
            logits = model(input_ids=ids, attention_mask=mask, position_ids=pos)["logits"]
        lp = _ref_bias_bench_processor(logits[:, -1, :], decay, eps)
        nxt = int(lp.argmax())
        dists.append(lp)
        tokens.append(nxt)
        ids = torch.cat([ids, torch.full((ids.shape[0], 1), nxt)], dim=1)
        mask = torch.cat([mask, torch.ones(ids.shape[0], 1, dtype=mask.dtype)], dim=1)
    return dists, tokens


def test_self_debias_generation_equals_bias_bench_reimplementation(tiny_gpt2_dir):
    """Greedy generation on the GPT-2-shaped model: every step's debiased distribution
    equals bias-bench's (1e-5) and so do the tokens, with three prompts of different
    lengths in one batch (the key/value cache and left padding change nothing)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from genderscope.models.generate import Decoding
    from genderscope.models.self_debias_generate import generate_self_debiased

    tok = AutoTokenizer.from_pretrained(tiny_gpt2_dir)
    tok.eos_token = None  # no early stop: the random model may say </s> at once
    model = AutoModelForCausalLM.from_pretrained(tiny_gpt2_dir).eval()
    model.generation_config.eos_token_id = tok.convert_tokens_to_ids("<unk>")
    prefixes = ["The following text discriminates against people because of their gender: ",
                "he is sexist: "]
    texts = ["<s>the nurse said that", "<s>my father is an engineer and he",
             "<s>hello"]
    pre_ids = [tok(p, add_special_tokens=False)["input_ids"] for p in prefixes]
    steps: dict[int, list] = {0: [], 1: [], 2: []}
    answers = generate_self_debiased(model, tok, "cpu", texts, Decoding(max_new_tokens=6),
                                     [0, 0, 0], pre_ids, 50.0, 0.01, batch_size=3,
                                     trace=lambda i, lp: steps[i].append(lp))
    for i, text in enumerate(texts):
        ref_d, ref_t = _ref_generate_self_debias(tiny_gpt2_dir, text, prefixes, 6)
        assert len(steps[i]) == 6
        for ours, ref in zip(steps[i], ref_d, strict=True):
            assert float((ours - ref).abs().max()) < TOL
        assert answers[i] == tok.decode(ref_t, skip_special_tokens=True)
