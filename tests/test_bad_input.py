"""Bad input: one clear line naming the value and what is allowed; LedgerError (a ValueError) from the library."""
import json
import math

import pytest

import ledger
from ledger import LedgerError, ModelShape

from ledger_cli import run_ledger

LLAMA = {"num_hidden_layers": 32, "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8,
         "intermediate_size": 14336, "vocab_size": 128256, "tie_word_embeddings": False, "model_type": "llama"}


def test_ledger_error_is_a_value_error():
    assert issubclass(LedgerError, ValueError)


def test_config_roundtrip(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(LLAMA))
    shape = ModelShape.from_hf_config(path)
    assert (shape.matrix_params, shape.N) == (8_029_995_008, 7_504_658_432)


@pytest.mark.parametrize("change, words", [
    ({"hidden_size": None}, "missing 'hidden_size'"),
    ({"num_hidden_layers": 0}, "num_hidden_layers = 0"),
    ({"intermediate_size": -5}, "intermediate_size = -5"),
    ({"vocab_size": 1.5}, "vocab_size = 1.5"),
    ({"num_attention_heads": 3}, "does not divide hidden"),
    ({"num_key_value_heads": 5}, "does not divide n_heads"),
    ({"tie_word_embeddings": "yes"}, "tie_word_embeddings"),
    ({"model_type": "gpt2"}, "model_type = 'gpt2'"),
    ({"num_local_experts": 8}, "mixture-of-experts"),
])
def test_bad_configs(change, words):
    config = dict(LLAMA)
    for key, value in change.items():
        if value is None:
            del config[key]
        else:
            config[key] = value
    with pytest.raises(LedgerError) as err:
        ModelShape.from_hf_config(config)
    assert words in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("kwargs, words", [
    ({"variant": "mamba"}, "variant = 'mamba'"),
    ({"seq_len": 0}, "seq_len = 0"),
    ({"seq_len": 3000}, "does not divide step_tokens"),
    ({"step_tokens": -1}, "step_tokens = -1"),
    ({"variant": "hyena2_circulant", "block": 4096 * 3}, "does not divide"),
    ({"variant": "hyena2_circulant", "block": 100}, "block = 100 does not divide"),
    ({"variant": "hyena2_circulant", "block": 1}, "block = 1"),
    ({"hybrid_attention_fraction": 1.5}, "hybrid_attention_fraction = 1.5"),
    ({"pixels": 0}, "pixels = 0"),
    ({"frame_rate": -1031}, "frame_rate = -1031"),
    ({"gpus": 0}, "gpus = 0"),
    ({"gpu_flops": math.nan}, "gpu_flops = nan"),
    ({"values_per_pixel": math.inf}, "values_per_pixel = inf"),
    ({"fft_constant": 0}, "fft_constant = 0"),
    ({"warp_speed": 9}, "unknown setting 'warp_speed'"),
    ({"attention_kernel": "xformers"}, "attention_kernel = 'xformers': must be one of dense, flash, flash-causal"),
    ({"attention_tile": -128}, "attention_tile = -128: must be a positive integer"),
    ({"modulator": "dmd-grey"}, "modulator = 'dmd-grey' is refused: an 8-bit grey level"),
    ({"modulator": "slm"}, "modulator = 'slm': must be one of ideal, dmd-superpixel"),
    ({"layout": "grid"}, "layout = 'grid': must be one of packed, rows"),
    ({"readout": "camera"}, "readout = 'camera': must be one of interferometric, intensity"),
    ({"layout": "rows", "row_pixels": 0}, "row_pixels = 0"),
])
def test_bad_settings(kwargs, words):
    with pytest.raises(LedgerError) as err:
        ledger.step_row(**kwargs)
    assert words in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("args, words", [
    (["--seq-len", "3000"], "does not divide step_tokens"),
    (["--seq-len", "0"], "not positive"),
    (["--seq-len", "abc"], "not a whole number"),
    (["--block", "100", "--variant", "hyena2_circulant"], "block = 100"),
    (["--pixels", "0"], "not a positive finite number"),
    (["--frame-rate", "-5"], "not a positive finite number"),
    (["--gpu-flops", "nan"], "not a positive finite number"),
    (["--variant", "mamba"], "invalid choice"),
    (["--hybrid-attention-fraction", "2"], "outside 0..1"),
    (["--config", "/nonexistent/config.json"], "no such file"),
    (["--attention-kernel", "sparse"], "invalid choice: 'sparse' (choose from 'dense', 'flash', 'flash-causal')"),
    (["--attention-tile", "0"], "not positive"),
    (["--modulator", "dmd-grey"], "is refused: an 8-bit grey level"),
    (["--modulator", "slm"], f"choose from {', '.join(ledger.MODULATORS)})"),
    (["--layout", "grid"], "invalid choice"),
    (["--layout", "rows", "--row-pixels", "0"], "not positive"),
])
def test_cli_bad_input_is_one_line_exit_2(args, words, tmp_path):
    result = run_ledger(*args, "--json", cwd=tmp_path)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0], result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""


@pytest.mark.parametrize("args, words", [(["--seq-len", "abc"], "not a whole number"),
                                         (["--hybrid-attention-fraction", "2"], "outside 0..1")])
def test_the_real_command_refuses_in_one_line(args, words, tmp_path):
    """The same refusals from `python -m ledger` itself, a process of its own (the tests above call
    its main function in the test's process)."""
    result = run_ledger(*args, "--json", cwd=tmp_path, real=True)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and words in result.stderr and "Traceback" not in result.stderr


def test_cli_bad_config_file(tmp_path):
    bad = dict(LLAMA, num_key_value_heads=7)
    (tmp_path / "config.json").write_text(json.dumps(bad))
    result = run_ledger("--config", str(tmp_path / "config.json"), "--json")
    assert result.returncode == 2 and "num_key_value_heads" in result.stderr or "n_kv_heads" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    (tmp_path / "broken.json").write_text("{not json")
    result = run_ledger("--config", str(tmp_path / "broken.json"), "--json")
    assert result.returncode == 2 and "not valid JSON" in result.stderr
