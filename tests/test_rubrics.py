"""The marking rubrics (ledger/exercises/rubrics.py): every explanation's rubric, practice or graded,
is a `Rubric` (two to four criteria with whole points, a three-line exemplar, the typical wrong answer
and what it earns), the registry and the key give it whole, the numbers a rubric quotes are the
ledger's, formatted as the rubric prints them, and the claims an exemplar makes for every variant
hold for every variant."""
from __future__ import annotations

import math
import re

import pytest

import ledger
from ledger import LedgerError, reconcile, schedule
from ledger.engine import MODULATORS
from ledger.exercises import REGISTRY, instructor, part1, part2
from ledger.exercises.rubrics import RUBRICS, Rubric
from ledger.explore import DEFAULTS
from ledger.passes import valid_blocks
from ledger.settings import Settings
from ledger.shapes import LLAMA3_8B
from ledger.step import step_items
from ledger.table import make_settings, step_row

EARNS = re.compile(r"\(at most \d+ points?\b")
"""How a rubric's typical wrong answer says what it earns."""


def rubric_problems(label: str, rubric) -> list[str]:
    """What keeps `rubric` from being a rubric as the course guide describes one ([] when it is)."""
    if not isinstance(rubric, Rubric):
        return [f"{label}: a {type(rubric).__name__}, not a Rubric (points, exemplar, typical wrong answer)"]
    problems = []
    if not 2 <= len(rubric.points) <= 4:
        problems.append(f"{label}: {len(rubric.points)} criteria, not 2 to 4")
    if len(rubric.exemplar) != 3:
        problems.append(f"{label}: an exemplar of {len(rubric.exemplar)} lines, not 3")
    if not EARNS.search(rubric.wrong):
        problems.append(f"{label}: the typical wrong answer does not say what it earns ('(at most N points ...)')")
    elif int(re.search(r"\d+", EARNS.search(rubric.wrong).group()).group()) >= rubric.max_points:
        problems.append(f"{label}: the typical wrong answer earns as much as a full answer")
    if "\n" in str(rubric):
        problems.append(f"{label}: the rubric's text is not one line (the solutions print it on one)")
    for word in ("the deck", "the seed"):
        if word in str(rubric).lower():
            problems.append(f"{label}: says {word!r}")
    return problems


def test_every_rubric_is_a_rubric_with_points_an_exemplar_and_the_typical_wrong_answer():
    explained = sorted(label for label, ex in REGISTRY.items() if not ex.asks_number)
    assert sorted(RUBRICS) == explained, "every explanation (and only an explanation) has a rubric"
    problems = [p for label, rubric in RUBRICS.items() for p in rubric_problems(label, rubric)]
    assert not problems, "\n".join(problems)
    for label, rubric in RUBRICS.items():
        assert REGISTRY[label].rubric is rubric, f"{label}: the registry does not give the rubric itself"
        assert instructor.max_points(label) == rubric.max_points, label
        if REGISTRY[label].graded:
            assert rubric.max_points == 4, f"{label}: a graded explanation is marked out of four points (course guide)"


def test_the_rule_fails_a_plain_string_and_a_short_rubric():
    """The check above can fail: a plain-text rubric, one criterion, or a wrong answer that does not say
    what it earns are each reported."""
    assert rubric_problems("x-why", "says the share stays put.")
    one = Rubric(points=((1, "says it"),), exemplar=("a", "b", "c"), wrong="says not (at most 1 point).")
    assert any("criteria" in p for p in rubric_problems("x-why", one))
    silent = Rubric(points=((1, "says a"), (1, "says b")), exemplar=("a", "b", "c"), wrong="says not.")
    assert any("earns" in p for p in rubric_problems("x-why", silent))
    greedy = Rubric(points=((1, "says a"), (1, "says b")), exemplar=("a", "b", "c"), wrong="says not (at most 2 points).")
    assert any("as much as" in p for p in rubric_problems("x-why", greedy))


@pytest.mark.parametrize("kw", [
    dict(points=(), exemplar=("a", "b", "c"), wrong="w"),
    dict(points=((0, "says it"),), exemplar=("a", "b", "c"), wrong="w"),
    dict(points=((1.5, "says it"),), exemplar=("a", "b", "c"), wrong="w"),
    dict(points=((True, "says it"),), exemplar=("a", "b", "c"), wrong="w"),
    dict(points=((1, ""),), exemplar=("a", "b", "c"), wrong="w"),
    dict(points=(1,), exemplar=("a", "b", "c"), wrong="w"),
    dict(points=((1, "says it"),), exemplar=("a", "b"), wrong="w"),
    dict(points=((1, "says it"),), exemplar=("a", "b\nc", "d"), wrong="w"),
    dict(points=((1, "says it"),), exemplar=("a", "b", "c"), wrong=""),
])
def test_a_bad_rubric_is_refused_in_one_line(kw):
    with pytest.raises(LedgerError) as err:
        Rubric(**kw)
    assert "\n" not in str(err.value)


def test_the_key_prints_each_rubric_whole_with_its_points():
    labels = sorted(RUBRICS)
    rows = instructor.key_rows(["s001"], labels)
    by_label = {row["label"]: row for row in rows}
    for label in labels:
        assert by_label[label]["rubric"] == str(RUBRICS[label])
        assert float(by_label[label]["max_points"]) == RUBRICS[label].max_points


# --- the numbers the rubrics quote ---------------------------------------------------------------

def _answer(label: str, **parameters) -> float:
    return REGISTRY[label].answer(**parameters)


def _pct(x: float) -> float:
    return 100 * x


def _recompute_view(variant: str, seq_len: int):
    """(LM head's % of the forward FLOPs, optical % of the recomputed work, forward share %)."""
    items = step_items(make_settings(variant=variant, seq_len=seq_len))
    forward = sum(i.flops for i in items if i.phase == "forward")
    head = sum(i.flops for i in items if i.phase == "forward" and i.layer == "lm_head")
    full = make_settings(variant=variant, seq_len=seq_len, recompute="full")
    rec = ledger.flops_by_phase_and_class(step_items(full))[ledger.RECOMPUTE]
    return (_pct(head / forward), _pct(sum(rec[c] for c in ledger.OPTICAL_CLASSES) / sum(rec.values())),
            _pct(step_row(variant=variant, seq_len=seq_len).forward_share))


def _explorer(**overrides):
    return step_row(**{**DEFAULTS, **overrides})


def _savanna(switches: dict) -> float:
    """Hyena-2 at 4,096 tokens with `switches` thrown, over the ledger's own count."""
    h = Settings(variant="hyena2", seq_len=4096)
    return reconcile.ledger_with_switches(h, switches) / reconcile.ledger_with_switches(h, {})


def _quoted() -> dict[str, list[str]]:
    """{label: strings its rubric must hold}, each formatted from the ledger as the rubric prints it."""
    circ = {b: step_row(variant="hyena2_circulant", seq_len=4096, block=b) for b in valid_blocks(LLAMA3_8B, 64, 2048)}
    fft = {v: (step_row(variant=v, seq_len=4096), step_row(variant=v, seq_len=4096, fft_constant=5))
           for v in ("hyena2", "hyena2_circulant")}
    static_p = step_row(variant="hyena2_circulant", seq_len=4096).static_share
    two_sided = (step_row(variant="hyena2", seq_len=2048, mask_spectrum="two-sided").weight_mask_s
                 / step_row(variant="hyena2", seq_len=2048).weight_mask_s)
    mb2, mb4 = (schedule.schedule_cost(Settings(variant="hyena2", seq_len=s), 8) for s in (2048, 4096))
    best = part1._jointly_best()
    t8 = Settings(variant="transformer", seq_len=8192)

    def cookbook(switches):
        return _pct(reconcile.ledger_with_switches(t8, switches) / reconcile.ledger_with_switches(t8, {}) - 1)
    sav512 = next(r for r in reconcile.reconcile_rows(["savanna-hyena-vocab512"]) if r["seq_len"] == 4096)
    r1, r16 = (step_row(variant="hyena2_circulant", seq_len=s) for s in (1024, 16384))
    long_hyena = {s: _explorer(variant="hyena2", seq_len=s) for s in (2048, 8192, 16384, 32768)}
    return {
        "intro-bigger-step-why": [f"{_pct(step_row(variant='hyena2', seq_len=2048).forward_share):.5f}%",
                                  f"{_answer('intro-bigger-step'):.5f}%", f"{_answer('intro-bigger-step-sequences'):,.0f} sequences"],
        "sixn-long-context-why": [f"{step_row(variant='transformer', seq_len=2048).matrix_params / 1e9:.2f} billion",
                                  f"{_answer('sixn-long-context-short'):.4f} at 2,048", f"{_answer('sixn-long-context'):.2f} at 32,768"],
        "sixn-causal-why": [f"at 8,192: {_answer('sixn-causal'):.4f}"],
        "passes-hybrid-why": [f"f = 1/2: {_hybrid_optical_ratio(0.5):.3f}",
                              f"{step_row(variant='hybrid', seq_len=4096, hybrid_attention_fraction=0.5).step_flops / step_row(variant='hyena2', seq_len=4096).step_flops:.3f} times"],
        "passes-mask-count-why": [f"S = 2,048: {_answer('passes-mask-count-dw') / (_answer('passes-mask-count') / 2):.0f} visits"],
        "circ-sequence-why": [f"{_pct(r1.step_share):.2f}% to {_pct(r16.step_share):.2f}%",
                              f"{_pct(r1.data_part):.2f}% to {_pct(r16.data_part):.2f}%"],
        "circ-static-block-why": [f"block, {max(circ, key=lambda b: circ[b].static_share)}",
                                  f"{_pct(circ[64].static_share):.2f}%", f"{circ[64].amdahl_static:.3f}x"],
        "amdahl-fft-constant-why": [f"{_pct(fft['hyena2'][0].step_share):.3f}% to {_pct(fft['hyena2'][1].step_share):.3f}%",
                                    f"{fft['hyena2'][0].amdahl:.4f}x to {fft['hyena2'][1].amdahl:.4f}x",
                                    f"{_pct(fft['hyena2_circulant'][0].step_share):.2f}% to {_pct(fft['hyena2_circulant'][1].step_share):.2f}%",
                                    f"{fft['hyena2_circulant'][0].amdahl:.3f}x to {fft['hyena2_circulant'][1].amdahl:.3f}x"],
        "amdahl-finite-speedup-why": [f"p = {_pct(static_p):.2f}% gives s = {1 + 1 / (1 - static_p):.2f}"],
        "masks-encoding-why": [f"{MODULATORS['dmd-superpixel'].frame_rate_hz:,.0f} binary patterns/s",
                               f"{MODULATORS['ideal'].frame_rate_hz:,.0f}/s", f"= {16 * 1031 / 2880:.2f}",
                               f"a factor {4096 / 2049:.4f}", f"({_answer('masks-encoding-modulator'):.3f} and {two_sided:.3f})",
                               f"{MODULATORS['dmd-superpixel'].pre_stored_hz:,.0f} Hz"],
        "layer-major-engines-why": [f"{_answer('layer-major-engines') / 64 / 1e9:.1f} billion numbers/s per GPU",
                                    f"64 GPUs: {_answer('layer-major-engines') / 1e9:,.0f} billion"],
        "layer-major-fp32-why": [f"{_answer('layer-major-fp32-boundary') / 4:.1f} GB per 1,048,576 tokens",
                                 f"the book's {_answer('layer-major-fp32-boundary'):.1f} GB",
                                 f"the book's {_answer('layer-major-fp32-inputs'):.2f} TB",
                                 f"{_answer('layer-major-fp32') / 4:.1f} TB per 1,048,576 tokens",
                                 f"{64 * schedule.HBM_BYTES_PER_GPU / 1e12:.2f} TB"],
        "layer-major-micro-batch-why": [f"{mb4.weight_frames // mb4.rewrites:,} frames of the default device against "
                                        f"{mb2.weight_frames // mb2.rewrites}",
                                        f"2 x {mb2.weight_frames // mb2.rewrites} = {2 * mb2.weight_frames // mb2.rewrites:,}"],
        "not-map-block-sum-why": [f"blocks of 512: {_answer('not-map-block-sum'):.2f}x"],
        "not-map-lm-head-why": [f"{_answer('not-map-lm-head-short'):.2f}% at 2,048 and {_answer('not-map-lm-head'):.2f}% at 8,192"],
        "explorer-share-drift-why": [f"{_answer('explorer-share-drift'):.3f}% against {_pct(_explorer().step_share):.3f}%"],
        "explorer-long-hyena-why": [f"{long_hyena[2048].all_digital_step_s:.3f} s at 2,048 tokens, "
                                    f"{long_hyena[32768].all_digital_step_s:.3f} s at 32,768",
                                    f"from {long_hyena[2048].weight_mask_s:.2f} s at 2,048 tokens to "
                                    f"{long_hyena[8192].weight_mask_s:.2f}, {long_hyena[16384].weight_mask_s:.2f} and "
                                    f"{long_hyena[32768].weight_mask_s:.2f} s",
                                    f"{_pct(long_hyena[8192].step_share):.2f}% to {_pct(long_hyena[32768].step_share):.2f}%"],
        "assumptions-two-switches-why": [f"= {_answer('assumptions-two-switches-predicted'):.2f}",
                                         f"the ledger gives {_answer('assumptions-two-switches'):.2f}"],
        "assumptions-half-gain-why": [f"p = {_pct(best['step_share']):.1f}% and a {best['amdahl']:.0f}x bound",
                                      f"= {_answer('assumptions-half-gain'):.0f}, against "
                                      f"{1 + step_row(variant='hyena2_circulant', seq_len=4096).amdahl:.2f} at the defaults",
                                      f"s = 4: {part1._gain_share_at(4.0):.1f}%", f"({part1._default_gain_share_at(4.0):.1f}% at s = 4)"],
        "rc-swiglu-why": [f"the book's S: {cookbook({'mlp_width': 16384}):.2f}%", f"({-cookbook({'lm_head': 'forward only'}):.2f}% at 8,192",
                          f"the book's +{_answer('rc-swiglu'):.2f}%"],
        "rc-ckpt-why": [f"the book's {_answer('rc-ckpt'):.4f} at 4,096"],
        "rc-savanna-why": [f"512: {_answer('rc-savanna-vocab'):.4f}", f"MLP rule alone {_savanna({'mlp_width': 10944}):.4f}",
                           f"default {sav512['ratio_to_ledger']:.4f}",
                           f"together: {_savanna({'mlp_width': 10944, 'vocab': 512}):.4f}"],
        "ct-selective-long-why": [f"the book's {part2._ct_selective_long():.1f}% at 32,768"],
        "ct-card31-why": [f"the book's {part2._ct_card31():.1f}%"],
        "fpt-flash-why": [f"{part2._fpt_flash():.1f}% causal, +{part2._fpt_flash(65536, 'flash'):.1f}% unmasked"],
        "am-vocab-why": [f"the book's 256: {part2._am_vocab():,.0f} words"],
        "am-long-why": [f"{part2._am_long_fft():.2f} times the transforms, {part2._am_long():.2f}% against {part2._am_long(2048):.2f}%"],
    }


def _hybrid_optical_ratio(fraction: float) -> float:
    """The hybrid's optical FLOPs at 4,096 tokens over Hyena-2's."""
    hybrid = step_row(variant="hybrid", seq_len=4096, hybrid_attention_fraction=fraction)
    hyena = step_row(variant="hyena2", seq_len=4096)
    return hybrid.step_share * hybrid.step_flops / (hyena.step_share * hyena.step_flops)


QUOTED = _quoted()


@pytest.mark.parametrize("label", sorted(QUOTED))
def test_the_numbers_a_rubric_quotes_are_the_ledgers(label):
    text = " ".join(str(RUBRICS[label]).split())
    missing = [q for q in QUOTED[label] if q not in text]
    assert not missing, f"{label}: the rubric does not say {missing} (the ledger's figures, as printed)"


def _rows(label: str) -> list[dict]:
    """The book's parameters and every variant's, as keyword arguments of `label`'s answer."""
    ex = REGISTRY[label]
    return [ex.book_parameters] + [dict(zip(ex.variants, row)) for row in zip(*ex.variants.values())]


def test_what_a_rubric_says_for_every_variant_holds_for_every_variant():
    # sixn-long-context-why: the long length is 16 times the short one, and so is the ratio
    long, short = _rows("sixn-long-context"), _rows("sixn-long-context-short")
    assert all(math.isclose(_answer("sixn-long-context", **a) / _answer("sixn-long-context-short", **b), 16.0)
               for a, b in zip(long, short))
    # sixn-recompute-why: the LM head about 6% of Hyena-2's forward FLOPs, about 83% of the block-circulant
    # model's, whose recomputed work is about 85% optical against a forward share of about 14%
    for row in _rows("sixn-recompute"):
        head, _, _ = _recompute_view("hyena2", row["seq_len"])
        c_head, c_rec, c_fwd = _recompute_view("hyena2_circulant", row["seq_len"])
        assert 5.5 < head < 6.5 and 82 < c_head < 84 and 84 < c_rec < 86 and 13.5 < c_fwd < 15, row
    # passes-hybrid-why: the optical work is exactly 1 - f of Hyena-2's, the step within a few percent
    for row in _rows("passes-hybrid"):
        assert math.isclose(_hybrid_optical_ratio(row["fraction"]), 1 - row["fraction"], rel_tol=1e-12)
    # passes-mask-count-why: dW = one visit's count x the sequences, about 2.75 x 10^11 at any length
    for row in _rows("passes-mask-count"):
        dw, weight = _answer("passes-mask-count-dw", **row), _answer("passes-mask-count", **row)
        assert dw == weight / 2 * (1_048_576 // row["seq_len"]) and 2.74e11 < dw < 2.78e11, row
    # circ-sequence-why and not-map-lm-head-why: the long convolutions are about 2% of the step
    for seq_len in (512, 1024, 2048, 8192, 16384, 32768):
        items = step_items(Settings(variant="hyena2_circulant", seq_len=seq_len))
        share = sum(i.flops for i in items if i.op.startswith("long conv")) / sum(i.flops for i in items)
        assert 0.015 < share < 0.025, (seq_len, share)
    heads = [_answer("not-map-lm-head-short", **r) for r in _rows("not-map-lm-head-short")]
    heads += [_answer("not-map-lm-head", **r) for r in _rows("not-map-lm-head")]
    lengths = [r["seq_len"] for r in _rows("not-map-lm-head-short") + _rows("not-map-lm-head")]
    assert [h for _, h in sorted(zip(lengths, heads))] == sorted(heads, reverse=True)  # falls slightly with S
    # layer-major-engines-why: the shared engine's rate is 14.9 billion numbers/s per GPU at any GPU count
    for row in _rows("layer-major-engines"):
        assert f"{_answer('layer-major-engines', **row) / row['gpus'] / 1e9:.1f}" == "14.9", row
    # layer-major-fp32-why: a boundary in one 80 GB GPU up to four steps; the inputs sharded; the spectra beyond
    cluster = 64 * schedule.HBM_BYTES_PER_GPU
    for row in _rows("layer-major-fp32-boundary"):
        assert (_answer("layer-major-fp32-boundary", **row) * 1e9 <= schedule.HBM_BYTES_PER_GPU) == (row["steps"] <= 4)
    for row in _rows("layer-major-fp32-inputs"):
        assert schedule.HBM_BYTES_PER_GPU < _answer("layer-major-fp32-inputs", **row) * 1e12 < cluster, row
    for row in _rows("layer-major-fp32"):
        assert _answer("layer-major-fp32", **row) * 1e12 > cluster, row
    # layer-major-micro-batch-why: 538 and 1,075 frames a rewrite, half the rewrites, under 0.1% apart
    for row in _rows("layer-major-micro-batch"):
        short, long_ = (schedule.schedule_cost(Settings(variant="hyena2", seq_len=s), row["micro_batch"]) for s in (2048, 4096))
        assert short.rewrites == 2 * long_.rewrites and abs(long_.weight_mask_s / short.weight_mask_s - 1) < 0.001, row
    # explorer-long-hyena-why: nine tenths of a step at 8,192 tokens, 1.8 and 3.6 steps at 16,384 and 32,768
    for seq_len, steps in ((8192, "0.9"), (16384, "1.8"), (32768, "3.6")):
        row = _explorer(variant="hyena2", seq_len=seq_len)
        assert f"{row.weight_mask_s / row.all_digital_step_s:.1f}" == steps and row.step_share < 0.01
    # assumptions-two-switches-why: the ledger's factor below the prediction, the gap almost all n/(n/2 + 1)
    d, t = (step_row(variant="hyena2_circulant", seq_len=4096, **kw) for kw in ({}, {"mask_spectrum": "two-sided"}))
    predicted, ledger_factor = _answer("assumptions-two-switches-predicted"), _answer("assumptions-two-switches")
    assert ledger_factor < predicted
    assert abs(predicted * (t.data_mask_s / d.data_mask_s) / 2 - ledger_factor) < 0.05 * (predicted - ledger_factor)
    # assumptions-half-gain-why: at every s, a few percent of the gain at most; the defaults about half or more
    for row in _rows("assumptions-half-gain-at-s"):
        assert part1._gain_share_at(row["speedup"]) < 7.5 and part1._default_gain_share_at(row["speedup"]) > 45, row
    # rc-swiglu-why: -ff 4 closer and above at every length; the MLP alone symmetric
    for row in _rows("rc-swiglu"):
        assert abs(part2._cookbook_percent(4, row["seq_len"])) < abs(part2._cookbook_percent(3, row["seq_len"]))
        assert part2._rc_swiglu(row["seq_len"]) > 0
    # rc-ckpt-why: below 4/3 at every length, nearer it as S grows
    ratios = [part2._rc_ckpt(r["seq_len"]) for r in sorted(_rows("rc-ckpt"), key=lambda r: r["seq_len"])]
    assert all(r < 4 / 3 for r in ratios) and ratios == sorted(ratios)
    # rc-savanna-why: every variant's vocabulary alone gives about 0.94 of the ledger
    for row in _rows("rc-savanna-vocab"):
        assert f"{_answer('rc-savanna-vocab', **row):.2f}" == "0.94", row
    # ct-selective-long-why: the tax is 4LSH / (6N + 12LSH) per token
    n = step_row(variant="transformer", seq_len=2048).matrix_params
    for row in _rows("ct-selective-long"):
        lsh = LLAMA3_8B.n_layers * row["seq_len"] * LLAMA3_8B.hidden
        assert math.isclose(_answer("ct-selective-long", **row) / 100, 4 * lsh / (6 * n + 12 * lsh), rel_tol=1e-9)
    # fpt-flash-why: the causal kernel below the model count, the unmasked one above, at every length
    for row in _rows("fpt-flash"):
        assert _answer("fpt-flash", **row) < 0 < _answer("fpt-flash-full", **row), row
    # am-vocab-why: below 32,000 at every block
    assert all(_answer("am-vocab", **row) < 32_000 for row in _rows("am-vocab"))
    # am-long-why: the transforms' factor is log2(2S)/log2(4,096); the share grows above 2,048, falls below
    for row in _rows("am-long-fft"):
        assert math.isclose(_answer("am-long-fft", **row), math.log2(2 * row["seq_len"]) / 12, rel_tol=1e-9)
    at_2048 = part2._am_long(2048)
    for row in _rows("am-long"):
        assert (_answer("am-long", **row) > at_2048) == (row["seq_len"] > 2048), row
