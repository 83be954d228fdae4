"""The optical engine: one description whose parts cannot contradict each other.

A modulator mode fixes the mask device's frame rate and how many complex values one pixel holds
after encoding (`MODULATORS`, one cited row each). The Fourier-plane layout says how spectra are
placed on the device (`layout`: packed, or one-dimensional rows under cylindrical optics); the
input plane and readout say what converting data in and out costs. `Settings.device` holds one
`Engine` (also importable as `ledger.Device`), and every mask, conversion and time figure of the book
is derived from it.

A description (docs/layout.md): what the device is, with no arithmetic over a step. What a step's
line items need of it is counted by the views: frames and mask rows in `ledger.masks`, what crosses
the optical/digital boundary in `ledger.boundary`.

The static share of the Amdahl table (a FLOP count) charges no time to the input plane or the
readout: it assumes an input modulator and detector that never stall the engine (`input_rate`
infinite). `hidden_costs` and `ledger.step_time` price them at `Engine.io_rate` and `Engine.detector_rate`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from .errors import LedgerError, check_positive_int, check_positive_number


@dataclass(frozen=True)
class Modulator:
    """One modulator mode: a device's frame rate and the pixels an encoding spends per complex value."""

    name: str
    device: str
    """What the row describes, in words."""
    frame_rate_hz: float
    """Mask frames per second the mode runs at."""
    cell: tuple[int, int]
    """(along a row, across rows) device pixels per complex value after encoding."""
    encoding: str
    """How a complex value is made from the device's pixels, and why the cell is that size."""
    cite: tuple[str, ...]
    """BibTeX keys (book/references.bib) backing the rate and the encoding."""
    idealised: bool = False
    """True for the book's idealised device, which no cited product reaches."""
    distinct_values: int = 0
    """Distinct complex values one encoded cell can take (the mask's alphabet), zero included."""
    precision: str = ""
    """Why the cell takes that many values: the derivation, or the assumption."""
    interface: str = ""
    """How new patterns reach the device at frame_rate_hz (the controller's input path)."""
    rate_condition: str = ""
    """When frame_rate_hz holds, as its source states it: for patterns streamed during the step, which every
    per-step weight mask is."""
    pre_stored_hz: float = 0.0
    """The faster rate for patterns written into the controller's memory before the step (0: none quoted); it
    does not apply to masks that change every optimizer step."""
    pre_stored_patterns: int = 0
    """How many one-bit patterns that memory holds (0: none quoted)."""

    @property
    def values_per_pixel(self) -> float:
        """Complex values per device pixel: 1 / (pixels in one cell)."""
        return 1.0 / (self.cell[0] * self.cell[1])

    @property
    def effective_bits(self) -> float:
        """Bits per real quadrature the alphabet would give on a uniform square grid: log2(distinct values) / 2.
        An upper bound on a real or imaginary part's resolution (a non-uniform alphabet resolves less)."""
        return math.log2(self.distinct_values) / 2


def binary_cell_values(phase_steps: int) -> int:
    """Distinct complex values a binary cell makes when its pixels carry the phase_steps-th roots of unity
    (a superpixel's 16 mirrors, or a Lee carrier period's pixels) and the spatial filter sums the pixels
    that are on: the distinct subset sums of those roots, counted by enumeration (3^(n/2) for even n:
    each pair of opposite roots gives +r, -r or 0, and half the roots are independent over the rationals)."""
    check_positive_int("phase_steps", phase_steps)
    if phase_steps > 20:
        raise LedgerError(f"phase_steps = {phase_steps}: at most 20 (the count enumerates 2^phase_steps patterns)")
    import numpy as np  # the subset sums as one array per root: 2^16 patterns in hundredths of a second at import

    sums = np.zeros(1, dtype=complex)
    for k in range(phase_steps):
        sums = np.concatenate([sums, sums + complex(math.cos(2 * math.pi * k / phase_steps),
                                                    math.sin(2 * math.pi * k / phase_steps))])
        sums = distinct_complex(sums)
    return len(sums)


def double_phase_values(phase_levels: int) -> int:
    """Distinct complex values e^(i a) + e^(i b) makes with a and b each on `phase_levels` uniform phase
    levels (a double-phase hologram on a phase-only device with that many levels), counted by enumeration."""
    check_positive_int("phase_levels", phase_levels)
    if phase_levels > 1024:
        raise LedgerError(f"phase_levels = {phase_levels}: at most 1,024 (the count enumerates every pair)")
    import numpy as np  # one array of every pair's sum: the 65,536 pairs of 256 levels at every `import ledger`

    angles = 2 * np.pi * np.arange(phase_levels) / phase_levels
    roots = np.cos(angles) + 1j * np.sin(angles)
    return len(distinct_complex((roots[:, None] + roots[None, :]).ravel()))


def distinct_complex(values):
    """The distinct values of a complex numpy array, values equal to 9 decimals counted as one (rounding
    absorbs the last bits of cos and sin)."""
    import numpy as np

    return np.unique(np.round(values.real, 9) + 1j * np.round(values.imag, 9))


IDEAL_EFFECTIVE_BITS = 8
"""Bits per real quadrature assumed for the idealised complex modulator: the 8-bit path chapter 08's
precision argument assumes (2^16 distinct complex values on a square grid)."""
LCOS_PHASE_LEVELS = 256
"""Phase levels of an 8-bit phase-only liquid-crystal device."""


DMD_BINARY_RATE_HZ = 9523.0
"""Binary (1-bit) pattern rate of a DLPC900-driven micromirror device (DLP6500, DLP9000) for *pre-stored*
patterns: one per 105 microseconds, the shortest load-and-flip time, for at most 400 (DLP6500) or 480
(DLP9000) patterns held in the controller's memory (ti2024dlpc900). Not a rate for masks written during a step."""
DLPC900_VIDEO_PATTERN_HZ = 24 * 120.0
"""Binary patterns per second a DLPC900 shows when they are *streamed* to it: video-pattern mode reads each
24-bit frame of its video input as 24 one-bit patterns, at up to 120 frames per second (ti2024dlpc900), so
2,880 per second (1,440 on the evaluation boards' 60 Hz video)."""
DLP9500_ROW_LOAD_S = 1080 * 16 / 400e6
"""Seconds to load one DLP9500 pattern through a DLPC410: 1,080 rows of 16 clocks at 400 MHz, 43.2 us, the
23,148 Hz TI gives for phased (block) resets, during which parts of the mask change while light passes."""
GLOBAL_RESET_SETTLE_S = 12.5e-6
"""Mirror settling a global reset adds to each pattern under a DLPC410: TI's 43 us per DLP7000 pattern at its
fastest global-reset rate is its 30.7 us row load plus this (ti2017dlp7000e2e)."""
DLPC410_DLP9500_HZ = float(round(1 / (DLP9500_ROW_LOAD_S + GLOBAL_RESET_SETTLE_S)))
"""Binary patterns per second a DLP9500 (1920 x 1080 mirrors) shows under a DLPC410 with a global reset, every
mirror switching at once as a Fourier-plane mask needs: the row load plus the settling, 17,953 Hz in whole hertz
(derived from ti2020dlpc410, ti2019dlp9500 and ti2017dlp7000e2e)."""
DLP9000X_MIRRORS = 2560 * 1600
"""Micromirrors of a DLP9000X; the engine counts Engine.pixels for every mode, whatever its device has."""
DLPC910_DLP9000X_HZ = 14989.0
"""Binary patterns per second a DLP9000X (2560 x 1600 mirrors) shows under a DLPC910 controller, streamed over
its high-speed input as they are shown (ti2019dlpc910)."""
LCOS_OVERDRIVE_HZ = 1000.0
"""Patterns per second of a nematic phase-only liquid-crystal device driven with overdrive: about 1 ms per
transition (thalhammer2013speeding); an upper bound that leaves no settled time to expose each pattern."""

_DLPC900 = ("DLPC900 video-pattern mode: 24 one-bit patterns per 24-bit video frame over its video input "
            "(DisplayPort, HDMI or parallel RGB)")
_DLPC900_CONDITION = ("streamed patterns at the 120 Hz maximum video input (1,440 per second at 60 Hz); the "
                      f"{DMD_BINARY_RATE_HZ:,.0f} Hz binary rate holds only for at most 400 (DLP6500) or 480 (DLP9000) "
                      "patterns stored in the controller before the step")
_DLPC410 = "DLPC410 with a DLP9500: each binary pattern streamed row by row over the controller's LVDS input"
_DLPC410_CONDITION = ("streamed binary patterns with a global reset (the whole mask changes between exposures), the "
                      "data source (an FPGA) keeping up with the input; 23,148 Hz only with phased resets, which change "
                      "parts of the mask while light passes")
_DLPC910 = "DLPC910 with a DLP9000X: each binary pattern streamed over the controller's high-speed serial input"
_DLPC910_CONDITION = ("streamed binary patterns at the controller's quoted rate, the data source keeping up with the "
                      "input; the reset behind that figure is not checked here, and if it is a block-load rate, a global "
                      "reset's settling would lower it to about 12,600 Hz")
_SUPERPIXEL = ("superpixel: 4 x 4 mirrors whose spatially filtered sum sets amplitude and phase, 1/16 value per "
               "pixel")
_SUPERPIXEL_PRECISION = ("the 16 mirrors carry phases in steps of 2 pi / 16 and the spatial filter sums those that "
                         "are on: the distinct subset sums of the 16th roots of unity, 3^8 = 6,561, the count Goorden "
                         "et al. report")
_LEE = ("Lee binary hologram: a carrier grating of period 4 pixels along the row, a fringe's shift sets the phase and "
        "its width the amplitude; the spatial filter that keeps only the first diffraction order passes at most 1/4 of "
        "the bandwidth along the carrier, so about 1/4 value per pixel (with few phase levels: the fringe moves in "
        "whole pixels)")
_LEE_PRECISION = ("one carrier period of 4 pixels, each on or off, at phases in steps of 2 pi / 4: its first-order "
                  "coefficient is a subset sum of the 4th roots of unity, 3^2 = 9 values (zero and eight non-zero: two "
                  "amplitudes at eight phases)")
_DOUBLE_PHASE = ("double-phase hologram: a complex value A e^(i phi) is the sum of two unit phasors "
                 "e^(i(phi +- arccos(A/2))) on two neighbouring pixels, 1/2 value per pixel")
_DOUBLE_PHASE_PRECISION = (f"two unit phasors on {LCOS_PHASE_LEVELS} phase levels each (an 8-bit device): the "
                           "distinct sums e^(i a) + e^(i b), counted by enumeration")

MODULATORS: dict[str, Modulator] = {m.name: m for m in (
    Modulator("ideal", "the book's idealised complex modulator", 1031.0, (1, 1),
              "one complex value (amplitude and phase) per pixel: an idealisation; the rate is of the order of a "
              "micromirror device's 8-bit grey-level pattern rate (about 250 Hz to 2 kHz across controllers), "
              "which itself makes no coherent amplitude", ("ti2024dlpc900",), idealised=True,
              distinct_values=4 ** IDEAL_EFFECTIVE_BITS,
              precision=f"assumed: {IDEAL_EFFECTIVE_BITS} bits per real quadrature, a square grid of "
                        f"{4 ** IDEAL_EFFECTIVE_BITS:,} complex values (the 8-bit path of chapter 08)",
              interface="none: an idealised device", rate_condition="assumed to hold for patterns streamed during "
              "the step; no cited device streams complex values at this rate"),
    Modulator("dmd-superpixel", "binary micromirror device (DLPC900 class) with patterns streamed to it",
              DLPC900_VIDEO_PATTERN_HZ, (4, 4), _SUPERPIXEL, ("ti2024dlpc900", "goorden2014superpixel"),
              distinct_values=binary_cell_values(16), precision=_SUPERPIXEL_PRECISION, interface=_DLPC900,
              rate_condition=_DLPC900_CONDITION, pre_stored_hz=DMD_BINARY_RATE_HZ, pre_stored_patterns=480),
    Modulator("dmd-lee", "binary micromirror device (DLPC900 class) with patterns streamed to it",
              DLPC900_VIDEO_PATTERN_HZ, (4, 1), _LEE, ("ti2024dlpc900", "lee1974binary", "lee1979binary"),
              distinct_values=binary_cell_values(4), precision=_LEE_PRECISION, interface=_DLPC900,
              rate_condition=_DLPC900_CONDITION, pre_stored_hz=DMD_BINARY_RATE_HZ, pre_stored_patterns=480),
    Modulator("dmd-superpixel-dlpc410", "binary micromirror device built for streaming (DLPC410 and DLP9500)",
              DLPC410_DLP9500_HZ, (4, 4), _SUPERPIXEL, ("ti2020dlpc410", "ti2019dlp9500", "ti2017dlp7000e2e", "goorden2014superpixel"),
              distinct_values=binary_cell_values(16), precision=_SUPERPIXEL_PRECISION, interface=_DLPC410,
              rate_condition=_DLPC410_CONDITION),
    Modulator("dmd-lee-dlpc410", "binary micromirror device built for streaming (DLPC410 and DLP9500)",
              DLPC410_DLP9500_HZ, (4, 1), _LEE, ("ti2020dlpc410", "ti2019dlp9500", "ti2017dlp7000e2e", "lee1974binary", "lee1979binary"),
              distinct_values=binary_cell_values(4), precision=_LEE_PRECISION, interface=_DLPC410,
              rate_condition=_DLPC410_CONDITION),
    Modulator("dmd-lee-dlpc910", "binary micromirror device built for streaming (DLPC910 and DLP9000X)",
              DLPC910_DLP9000X_HZ, (4, 1), _LEE, ("ti2019dlpc910", "lee1974binary", "lee1979binary"),
              distinct_values=binary_cell_values(4), precision=_LEE_PRECISION, interface=_DLPC910,
              rate_condition=_DLPC910_CONDITION),
    Modulator("lcos-double-phase", "phase-only liquid-crystal-on-silicon modulator at video rate",
              60.0, (2, 1), _DOUBLE_PHASE + "; about 60 Hz, the video rate most such devices are driven at",
              ("hsueh1978double", "oton2009dynamic", "chen2018lcos"),
              distinct_values=double_phase_values(LCOS_PHASE_LEVELS), precision=_DOUBLE_PHASE_PRECISION,
              interface="a video input (DisplayPort, HDMI or DVI), one phase pattern per frame",
              rate_condition="streamed patterns at the 60 Hz video rate, the liquid crystal settling within a frame"),
    Modulator("lcos-fast-double-phase", "phase-only nematic liquid-crystal-on-silicon modulator driven with overdrive",
              LCOS_OVERDRIVE_HZ, (2, 1), _DOUBLE_PHASE + "; about 1 ms per pattern with overdrive and phase-change "
              "reduction, an upper bound for a prescribed complex mask",
              ("hsueh1978double", "thalhammer2013speeding"),
              distinct_values=double_phase_values(LCOS_PHASE_LEVELS), precision=_DOUBLE_PHASE_PRECISION,
              interface="a fast driver that writes intermediate overdrive frames between patterns",
              rate_condition="streamed patterns, one transition of about 1 ms each, as measured with overdrive and "
                             "phase-change reduction (which re-optimises a hologram's free phase; a prescribed "
                             "double-phase mask has less of that freedom); an upper bound that leaves no settled "
                             "time to expose a pattern"),
)}
"""Modulator modes offered as complex Fourier-plane masks, one cited row each; "ideal" is the default."""

REFUSED_MODULATORS: dict[str, str] = {
    "dmd-grey": "an 8-bit grey level on a micromirror device is a time average of binary frames, an intensity "
                "seen by a slow detector, not a coherent complex amplitude: it cannot be a complex mask",
}
"""Modes that look like complex masks and are not, each with its one-line reason."""

LAYOUTS = ("packed", "rows")
"""packed: values fill the frame wherever there is room (the conventions' count, a lower bound on frames).
rows: one-dimensional transforms under cylindrical optics, each spectrum starting on a row of its own."""

MASK_OVERLAPS = ("serial", "overlapped")
"""Whether the engine waits for its mask rewrites ("serial") or writes the next masks while the current ones
serve ("overlapped": a double-buffered device)."""

READOUTS = {"interferometric": 2, "intensity": 1}
"""Detector samples per real number read out. interferometric: the output beats with a reference in two
phase-stepped exposures (or on a balanced pair of detector pixels), |r+y|^2 - |r-y|^2 = 4ry, so the sign
survives. intensity: one sample of |y|^2, which loses the sign of a real output (and the phase of a complex
one) unless a known bias is added to the signal, spending part of the detector's range."""

DEFAULT_ROW_PIXELS = 1920
"""Pixels along a row: the width of a 1920 x 1080 panel. Layout "rows" folds the device's `pixels` (2,000,000)
into rows of this length, floor(2,000,000 / 1,920) = 1,041 full rows (a real 1920 x 1080 panel has 1,080 rows,
2,073,600 pixels), so rows x row length never exceeds the pixels the packed layout counts."""


def modulator(name: str) -> Modulator:
    """The mode `name`; a LedgerError naming the choices (or why a refused mode is refused)."""
    if name in MODULATORS:
        return MODULATORS[name]
    if isinstance(name, str) and name in REFUSED_MODULATORS:
        raise LedgerError(f"modulator = {name!r} is refused: {REFUSED_MODULATORS[name]}")
    raise LedgerError(f"modulator = {name!r}: must be one of {', '.join(MODULATORS)}")


@dataclass(frozen=True)
class Engine:
    """The optical engine of the ledger and the digital cluster it is compared with.

    `frame_rate` and `values_per_pixel` are overrides (None: the modulator mode's figures); the figures in
    use are `frame_rate_hz` and `complex_values_per_pixel`, and `cited` says whether they are the mode's.
    To switch modes, build a new Engine (or pass modulator= to `make_settings`/`step_row`):
    `dataclasses.replace` keeps any override already set.
    """

    modulator: str = "ideal"
    """A key of MODULATORS: the mask device and its encoding."""
    frame_rate: float | None = None
    """Override of the mode's frame rate (Hz); None: the mode's."""
    values_per_pixel: float | None = None
    """Override of the mode's complex values per pixel; None: the mode's."""
    pixels: float = 2_000_000
    """Mask pixels of the device."""
    layout: str = "packed"
    """Fourier-plane layout, one of LAYOUTS (the one- or two-sided spectrum is Settings.mask_spectrum)."""
    row_pixels: int = DEFAULT_ROW_PIXELS
    """Pixels along one row (layout "rows")."""
    input_rate: float | None = None
    """Real numbers per second the input plane writes, and samples per second the readout takes; None: the input
    plane is a device like the mask device, in the mode's encoding (pixels x values per pixel x frame_rate_hz),
    and the detector takes one sample per pixel per frame (pixels x frame_rate_hz)."""
    readout: str = "interferometric"
    """Detection of the outputs, a key of READOUTS."""
    gpus: float = 64
    """GPUs that run the digital step."""
    gpu_flops: float = 400e12
    """Sustained FLOP/s of one GPU on matrix products (tensor cores): illustrative, about 40% of an H100 SXM's
    989 TFLOP/s dense BF16 peak (nvidia2023h100), the utilisation Llama 3 405B reports (dubey2024llama3)."""
    gpu_bandwidth: float = 3.35e12
    """Bytes per second one GPU's memory moves: the H100 SXM's 3.35 TB/s HBM3 peak (nvidia2023h100). A peak,
    so the memory-bound kernels (FFTs, spectral products, elementwise work) get a lower bound on their time."""
    gpu_vector_flops: float = 67e12
    """FLOP/s of one GPU outside its tensor cores: the H100 SXM's FP32 peak (nvidia2023h100)."""
    gpu_bytes_per_value: float = 4
    """Bytes per real value of the FFTs and spectral work in GPU memory: fp32 (an assumption: long FFTs in
    16-bit floats lose accuracy)."""
    link_rate: float = 63e9
    """Bytes per second each way between the GPUs and the engine: a PCIe 5.0 x16 link, 32 GT/s on 16 lanes
    with 128b/130b coding, about 63 GB/s (pcisig2019pcie5)."""
    link_bytes_per_value: float = 1
    """Bytes per real number crossing the link: 8-bit converters (the 8-bit path of chapter 08)."""
    engines: float = 1
    """Optical engines that share the step's streaming, the data split evenly among them; each holds every layer's
    masks, so each rewrites them all. 1 (the book's): one engine for the cluster; `gpus`: one per GPU."""
    mask_overlap: str = "serial"
    """"serial": the engine stops while a mask is rewritten; "overlapped": a double-buffered device writes the
    next masks while the current ones are in use (ledger.step_time)."""

    def __post_init__(self) -> None:
        mode = modulator(self.modulator)
        for name in ("frame_rate", "values_per_pixel", "input_rate"):
            if getattr(self, name) is not None:
                check_positive_number(name, getattr(self, name))
        for name in ("pixels", "gpus", "gpu_flops", "gpu_bandwidth", "gpu_vector_flops", "gpu_bytes_per_value",
                     "link_rate", "link_bytes_per_value", "engines"):
            check_positive_number(name, getattr(self, name))
        if self.mask_overlap not in MASK_OVERLAPS:
            raise LedgerError(f"mask_overlap = {self.mask_overlap!r}: must be one of {', '.join(MASK_OVERLAPS)}")
        if self.layout not in LAYOUTS:
            raise LedgerError(f"layout = {self.layout!r}: must be one of {', '.join(LAYOUTS)}")
        if self.readout not in READOUTS:
            raise LedgerError(f"readout = {self.readout!r}: must be one of {', '.join(READOUTS)}")
        check_positive_int("row_pixels", self.row_pixels)
        if self.layout == "rows":
            if self.row_pixels > self.pixels:
                raise LedgerError(f"row_pixels = {self.row_pixels}: longer than the device's {self.pixels:,.0f} "
                                  "pixels")
            if self.row_values < 1 or self.rows_per_frame < 1:
                raise LedgerError(f"row_pixels = {self.row_pixels}: a row of {mode.name!r} must hold at least "
                                  "one complex value and the device at least one row")

    @property
    def mode(self) -> Modulator:
        return MODULATORS[self.modulator]

    @property
    def frame_rate_hz(self) -> float:
        """Mask frames per second in use (the override, or the mode's)."""
        return self.mode.frame_rate_hz if self.frame_rate is None else float(self.frame_rate)

    @property
    def complex_values_per_pixel(self) -> float:
        """Complex values per device pixel in use (the override, or the mode's encoding)."""
        return self.mode.values_per_pixel if self.values_per_pixel is None else float(self.values_per_pixel)

    @property
    def cited(self) -> bool:
        """True when the frame rate and values per pixel in use are the cited mode's (not overridden)."""
        return (self.frame_rate_hz == self.mode.frame_rate_hz
                and self.complex_values_per_pixel == self.mode.values_per_pixel)

    @property
    def note(self) -> str:
        """One line: the mode, and what an override changed."""
        text = f"{self.modulator}: {self.mode.device}; {self.mode.encoding}"
        if not self.cited:
            text += (f" [overridden: {self.frame_rate_hz:g} Hz, {self.complex_values_per_pixel:g} values per "
                     "pixel; no longer the cited device]")
        return text

    @property
    def effective_bits(self) -> float:
        """Bits per real quadrature the mode's alphabet delivers (Modulator.effective_bits); overrides of the
        frame rate or values per pixel leave it the mode's."""
        return self.mode.effective_bits

    @property
    def values_per_frame(self) -> float:
        """Complex values one frame holds: pixels x values per pixel."""
        return self.pixels * self.complex_values_per_pixel

    @property
    def values_per_second(self) -> float:
        """Complex mask values written per second: values per frame x frame rate."""
        return self.values_per_frame * self.frame_rate_hz

    @property
    def cell_height(self) -> int:
        """Device rows one encoded value spans (the mode's cell; 1 once values per pixel is overridden)."""
        return self.mode.cell[1] if self.values_per_pixel is None else 1

    @property
    def row_values(self) -> int:
        """Complex values one row holds (layout "rows"): row_pixels x values per pixel x cell height."""
        return math.floor(self.row_pixels * self.complex_values_per_pixel * self.cell_height + 1e-9)

    @property
    def rows_per_frame(self) -> int:
        """Rows of encoded values one frame holds: floor(pixels / row_pixels) pixel rows over the cell height."""
        return math.floor(self.pixels / self.row_pixels + 1e-9) // self.cell_height

    @property
    def io_rate(self) -> float:
        """Real numbers per second the input plane writes: input_rate, or one per encoded cell per frame, as the
        mode encodes a mask (pixels x values per pixel x frame rate: a binary mirror holds no number by itself)."""
        if self.input_rate is not None:
            return float(self.input_rate)
        return self.pixels * self.complex_values_per_pixel * self.frame_rate_hz

    @property
    def detector_rate(self) -> float:
        """Samples per second the detector takes: input_rate, or one per pixel per frame (a detector array as
        large as the device, read at its frame rate)."""
        return float(self.input_rate) if self.input_rate is not None else self.pixels * self.frame_rate_hz

    @property
    def readout_samples(self) -> int:
        """Detector samples per real number read out."""
        return READOUTS[self.readout]

    @property
    def cluster_flops(self) -> float:
        """Sustained FLOP/s of the whole digital cluster."""
        return self.gpus * self.gpu_flops

    def rows_for(self, spectrum_values: int) -> int:
        """Rows one spectrum of `spectrum_values` complex values occupies: ceil(values / row_values)."""
        return math.ceil(spectrum_values / self.row_values)

    def frames(self, values: float, rows: float = 0.0) -> int:
        """Whole frames for `values` complex values (packed) or `rows` rows (layout "rows")."""
        if self.layout == "rows":
            return math.ceil(rows / self.rows_per_frame) if rows > 0 else 0
        return math.ceil(values / self.values_per_frame) if values > 0 else 0
