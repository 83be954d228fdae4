"""ledger: a per-operation FLOP ledger of one LLM training step (forward, dX, dW) and its optical share."""
from .costs import Costs
from .engine import LAYOUTS, MODULATORS, READOUTS, REFUSED_MODULATORS, Engine, Modulator
from .errors import LedgerError
from .layers import ALL_PHASES, CLASSES, OPTICAL_CLASSES, PHASES, RECOMPUTE, STATIC_CLASSES, LineItem
from .masks import MaskBudget, digital_step_seconds, mask_budget
from .settings import (ATTENTION_KERNELS, FFT_LENGTHS, MASK_SPECTRA, RECOMPUTE_MODES, VARIANTS, Device, Settings, check_block,
                       circulant_matrices)
from .shapes import LLAMA3_8B, ModelShape
from .shares import amdahl, flops_by_pass, flops_by_phase_and_class, group_flops
from .step import matrix_params, step_items, weight_matrices
from .table import StepRow, make_settings, six_n_flops, step_row, summarize
from .hardware import hardware_flops, model_flops

__all__ = [
    "Engine", "LAYOUTS", "MODULATORS", "Modulator", "READOUTS", "REFUSED_MODULATORS",
    "ALL_PHASES", "ATTENTION_KERNELS", "FFT_LENGTHS", "hardware_flops", "model_flops", "MASK_SPECTRA", "RECOMPUTE", "RECOMPUTE_MODES", "matrix_params", "weight_matrices",
    "CLASSES", "Costs", "Device", "LLAMA3_8B", "LedgerError", "LineItem", "MaskBudget", "ModelShape",
    "OPTICAL_CLASSES", "PHASES", "STATIC_CLASSES", "Settings", "StepRow", "VARIANTS", "amdahl",
    "check_block", "circulant_matrices", "digital_step_seconds", "flops_by_pass",
    "flops_by_phase_and_class", "group_flops", "make_settings", "mask_budget", "six_n_flops",
    "step_items", "step_row", "summarize",
]
