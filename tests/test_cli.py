"""The command line and its JSON contract (keys other tools read)."""
import json
import subprocess
import sys

import pytest

ROW_KEYS = {"variant", "seq_len", "sequences", "forward_flops", "backward_flops", "flops_by_class",
            "forward_share", "backward_share", "step_share", "static_share", "data_part", "amdahl",
            "amdahl_static", "weight_mask_s", "data_mask_s", "digital_step_s"}
CLASSES = {"transform", "weight_product", "data_product", "digital"}


def run(*args, cwd=None):
    result = subprocess.run([sys.executable, "-m", "ledger", *args], capture_output=True, text=True, cwd=cwd,
                            check=False)
    assert result.returncode == 0, result.stderr
    return result


@pytest.fixture(scope="module")
def data():
    return json.loads(run("--json").stdout)


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
