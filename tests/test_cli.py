"""The command line and its JSON contract (keys other tools read)."""
import json

import pytest

from ledger_cli import run_ledger

ROW_KEYS = {"variant", "seq_len", "sequences", "forward_flops", "backward_flops", "flops_by_class",
            "forward_share", "backward_share", "step_share", "static_share", "data_part", "amdahl",
            "amdahl_static", "weight_mask_s", "data_mask_s", "digital_step_s", "hardware_flops"}
CLASSES = {"transform", "weight_product", "data_product", "digital"}


def run(*args, cwd=None, real=False):
    result = run_ledger(*args, cwd=cwd, real=real)
    assert result.returncode == 0, result.stderr
    return result


@pytest.fixture(scope="module")
def data():
    return json.loads(run("--json", real=True).stdout)  # the command itself; the other tests call its main


def test_top_level(data):
    assert data["model"]["matrix_params"] == 8_029_995_008 and data["model"]["N"] == 7_504_658_432
    assert data["step_tokens"] == 1_048_576


def test_rows(data):
    rows = data["rows"]
    assert {(r["variant"], r["seq_len"]) for r in rows} == {
        (v, s) for v in ("transformer", "hyena2", "hybrid", "hyena2_circulant") for s in (2048, 4096, 8192)}
    for r in rows:
        assert ROW_KEYS <= set(r)
        assert set(r["flops_by_class"]) == {"forward", "backward"}
        assert set(r["flops_by_class"]["forward"]) == CLASSES == set(r["flops_by_class"]["backward"])
        assert ("six_n_ratio" in r) == (r["variant"] == "transformer")
    circ = next(r for r in rows if r["variant"] == "hyena2_circulant" and r["seq_len"] == 4096)
    assert [round(100 * circ[k], 2) for k in ("forward_share", "backward_share", "step_share", "static_share",
                                               "data_part")] == [14.18, 11.16, 12.19, 9.66, 20.73]


def test_options(tmp_path):
    out = json.loads(run("--json", "--seq-len", "2048", "--variant", "hyena2", "--step-tokens", "2097152",
                         "--gpus", "128", "--block", "512").stdout)
    (row,) = out["rows"]
    assert (row["variant"], row["seq_len"], row["sequences"]) == ("hyena2", 2048, 1024)
    assert f"{row['digital_step_s']:.2f}" == "2.05"  # twice the tokens on twice the GPUs


def test_writes_report(tmp_path):
    run("--out-dir", str(tmp_path))
    md = (tmp_path / "results.md").read_text()
    for heading in ("1. Cross-check: the 6N rule", "2. A training step", "3. Why the share falls",
                    "4. Holding the masks", "5. Numeric checks"):
        assert heading in md
    assert "| 14.18% | 11.16% | 12.19% | 9.66% | 20.73% | 1.139x | 1.107x |" in md
    assert json.loads((tmp_path / "results.json").read_text())["rows"]


def test_attention_kernel_flag_moves_hardware_flops_only():
    rows = {}
    for kernel in ("dense", "flash", "flash-causal"):
        out = json.loads(run("--json", "--variant", "transformer", "--variant", "hyena2", "--seq-len", "32768",
                             "--attention-kernel", kernel).stdout)
        assert out["attention_kernel"] == kernel and out["attention_tile"] == 128
        rows[kernel] = {r["variant"]: r for r in out["rows"]}
    tf = {k: r["transformer"] for k, r in rows.items()}
    assert len({r["step_flops"] for r in tf.values()}) == 1  # model FLOPs do not follow the kernel
    assert tf["dense"]["hardware_flops"] == tf["dense"]["step_flops"]
    assert f"{tf['flash-causal']['hardware_flops'] / tf['dense']['step_flops'] - 1:.3f}" == "-0.221"
    assert f"{tf['flash']['hardware_flops'] / tf['dense']['step_flops'] - 1:.4f}" == "0.0890"
    assert {r["hyena2"]["hardware_flops"] for r in rows.values()} == {rows["dense"]["hyena2"]["step_flops"]}
    tiled = json.loads(run("--json", "--variant", "transformer", "--seq-len", "32768", "--attention-tile", "64").stdout)
    assert tiled["rows"][0]["hardware_flops"] < tf["flash-causal"]["hardware_flops"]


def test_report_sets_model_beside_hardware(tmp_path):
    run("--out-dir", str(tmp_path), "--variant", "transformer", "--variant", "hyena2", "--seq-len", "32768")
    md = (tmp_path / "results.md").read_text()
    assert "### Model and hardware FLOPs" in md and "Attention kernel flash-causal (tile 128)." in md
    assert "| Transformer (Llama-3-8B) | 32,768 | 1.0126e+17 | 7.8864e+16 | 0.779 |" in md
    assert "| Hyena-2 | 32,768 |" not in md.split("### Model and hardware FLOPs")[1].split("## 2.")[0]


def test_help_names_every_subcommand():
    text = " ".join(run("--help").stdout.split())
    for sub in ("python -m ledger reconcile", "python -m ledger assumptions", "python -m ledger claims",
                "python -m ledger exercises key --students FILE --out KEY.csv", "exercises list"):
        assert sub in text, sub
    assert "--students" in run("exercises", "key", "--help").stdout
