"""The marking rubrics of the explanation exercises, label -> rubric: for the teacher's edition only.

The student folder leaves this module out (book/_tools/student.py), so a student's library has no
rubric; the registry reads it when it is present (`Exercise.rubric`), and the teacher's book prints
each rubric in its exercise's solution.

A graded explanation's rubric is a `Rubric`: criteria with their points, a three-line exemplar and
the typical wrong answer. It is a string too (its whole text, one line, as the solutions print it),
so a practice label's plain-text rubric and a graded one's read alike."""
from __future__ import annotations


class Rubric(str):
    """A marking rubric: `points` ((points, criterion), ...), `exemplar` (three lines, a full-marks
    answer) and `wrong` (the typical wrong answer and what it earns); `str(rubric)` is the whole
    text on one line and `max_points` the sum of the criteria's points."""

    points: tuple
    exemplar: tuple
    wrong: str

    def __new__(cls, points, exemplar, wrong):
        points, exemplar = tuple(points), tuple(exemplar)
        if not points or any(not (isinstance(p, int) and p > 0) or not c for p, c in points):
            raise ValueError("a rubric needs criteria, each with a positive whole number of points")
        if len(exemplar) != 3:
            raise ValueError("a rubric's exemplar has three lines")
        total = sum(p for p, _ in points)
        criteria = "; ".join(f"({p} {'point' if p == 1 else 'points'}) {c}" for p, c in points)
        text = (f"{criteria} [{total} points]. Exemplar: {' / '.join(exemplar)} "
                f"Typical wrong answer: {wrong}")
        self = super().__new__(cls, text)
        self.points, self.exemplar, self.wrong = points, exemplar, wrong
        return self

    @property
    def max_points(self) -> int:
        return sum(p for p, _ in self.points)


RUBRICS: dict[str, str | Rubric] = {
    'intro-4f-inversion':
        "shows that two forward transforms give u(-x), a mirror image; says a mirror image is a relabelling of the camera's pixels, so no inverse transform is needed.",
    'intro-bigger-step-why':
        'says almost all forward work is paid per token or per sequence, so it doubles with the step and the share stays put; names the once-per-step FFT of each filter into its spectrum as the exception, whose weight halves.',
    'sixn-long-context-why':
        "says the rest of the step is exactly 6NT, so the ledger's ratio is the estimate 12LSH/6N = 2LSH/N; says it grows linearly with S, so at long context the parameter count no longer describes the step.",
    'sixn-causal-why':
        "says causal masking halves the score products only, so the step is 6NT + 6LSHT (Kaplan et al.'s form); gives the ratio (N + LSH)/(N + 2LSH) and says the ledger matches it to rounding.",
    'sixn-recompute-why':
        "shows (O + o)/(F + f) is a weighted mean of O/F and o/f; says Hyena-2's recomputed work differs from its forward pass only by the digital LM head and the once-per-step filter transforms, so o/f is close to its forward share; says the block-circulant model's dense LM head is most of its forward FLOPs and is not recomputed, so o/f is far above its forward share.",
    'corr-conj-reversal': Rubric(
        points=((1, "shows that for a complex h the DFT of R conj(h) is conj(H), so IFFT(G conj(H)) = R(conj(h) circ-conv Rg): reversal alone is not enough, the filter is conjugated too"),
                (1, "checks both forms with np.fft for a complex h at n = 128: the conjugated form to rounding (about 1e-15), the real-h form off by order one"),
                (1, "says that for a real h, conj(H[k]) = H[-k]: the gradient's mask is the forward mask with its bins relabelled (reversed), nothing new to write"),
                (1, "says that for a complex h the gradient's mask conj(H) is not a relabelling of H: it is a second mask to write (or a phase conjugation of the field), a cost the real case does not pay")),
        exemplar=("For complex h, IFFT(G conj H)[k] = sum_i g[i+k] conj(h[i]) = R(conj(h) circ-conv Rg)[k].",
                  "np.fft with complex h: the conjugated form agrees to 1e-15, the real form is off by O(1).",
                  "A real filter's conj(H) is H with reversed bins (a relabelling); a complex one's is a new mask."),
        wrong="repeats the real-signal proof and says reversal suffices for any filter, so the backward pass never needs a new mask (at most 1 point: the real case)."),
    'corr-fd-step-why': Rubric(
        points=((1, "says the three comparisons with direct sums do not use the step and are unchanged"),
                (1, "says the loss is linear in the input, so central differences have no truncation error: the finite-difference error is rounding error in the loss divided by the step, and grows by the order of the factor 1,000 the step shrank"),
                (1, "says the factor is a ratio of two rounding-error draws, so each seed gives its own (from a few hundred to about two thousand over seeds), and only its order of magnitude is a property of the method")),
        exemplar=("The direct-sum comparisons never use the step: unchanged.",
                  "The loss is linear in u, so the finite difference only carries rounding error over the step: about 1,000x larger.",
                  "Seed 0 gives a few hundred, other seeds up to about two thousand: rounding draws, of the order of 1,000."),
        wrong="says the error grows because of truncation error, or that it always grows by less than 1,000 (at most 1 point)."),
    'passes-hybrid-why':
        "says the optical work falls with the fraction of layers that keep Hyena (each attention layer removes its long convolutions), while the step's FLOPs barely move (an attention layer costs about as much as the Hyena layer it replaces); concludes the optical work moves more and the dilution is the smaller effect.",
    'passes-mask-count-why':
        "says the weight masks are the filters' spectra, the same for every sequence, while the dW masks hold each sequence's own input spectrum; so the dW count is one visit's count times the number of sequences.",
    'circ-dx-derivation-why':
        'shows the transpose of a circulant block is circulant with the reversed vector, whose spectrum is the conjugate one; concludes dx_j = IFFT(sum_i conj(W_ij) G_i); says the transforms swap sides against the forward pass (p in, q out), and so does the sum.',
    'circ-sequence-why':
        "says almost all of this model's optical work is in the circulant matrices, paid per token whatever the sequence length; says only the long convolutions, a small part, grow with S, and they add transforms, so the data-by-data part falls slightly.",
    'circ-static-block-why':
        'names the smallest block as the best; says the weight-masked products the static share keeps grow as the block shrinks exactly as the data-by-data ones do (about 3MK/b FLOPs per token each), so a smaller block enlarges both and only the data-by-data kind is lost.',
    'amdahl-fft-constant-why':
        "says doubling every transform's price nearly doubles Hyena-2's share, almost all transforms, and moves the block-circulant model less, its products and digital sums unchanged; concludes the picture does not change: Hyena-2 stays far below one percent.",
    'amdahl-block-size-why': Rubric(
        points=((1, "predicts, before running, the direction of the step share and the static share at the student's own block against 256, from the circulant products' cost of about 3MK/b per token (they shrink as b grows, grow as it shrinks)"),
                (1, "says the transforms change only with log2 b and the dense LM head not at all, so the dense LM head's share of the step sets how far the shares can move"),
                (1, "predicts that Llama-3.2-1B's static share is lower than Llama-3-8B's at the same block, because its dense LM head (128,256 x 2,048) is a much larger part of its step (16 narrow layers against 32 wide ones)"),
                (1, "confirms both predictions with the ledger (shape=Llama-3.2-1B) and says the static share moves less than the step share because the data-by-data products it leaves out also change with b")),
        exemplar=("Circulant products cost about 3MK/b per token; transforms grow as log2 b; the dense head stays fixed.",
                  "So my block moves both shares the way 1/b moves; the static share less, its excluded data-by-data products move with b too.",
                  "Llama-3.2-1B: the head is a larger part of its step, so its static share is lower at every block; the ledger agrees."),
        wrong="says a smaller model has a larger optical share because everything is smaller in proportion, ignoring that the LM head does not shrink with the layers (at most 2 points)."),
    'amdahl-finite-speedup-why':
        "derives s = (2 - p)/(1 - p) = 1 + 1/(1 - p) from setting the gain to half the infinite one; says for a small p that is barely more than 2, so an engine twice as fast as the GPUs earns half of what Amdahl allows and the bound is set by p, not by the engine's speed.",
    'masks-encoding-why':
        "says the superpixel costs 16 times the frames but a streamed binary pattern is written about 2.8 times faster than an idealised frame, so 16 x 1,031/2,880 (not the 9,523 Hz of pre-stored patterns, which a step's new masks cannot use); says the two-sided spectrum has n values instead of n/2 + 1, n/(n/2 + 1) = 4,096/2,049, just under 2 because the one-sided count holds both the zero and the Nyquist bin; says the ledger's time factors differ slightly from these value factors because the values are packed into whole frames, rounded up.",
    'masks-step-size-why': Rubric(
        points=((1, "says the weight-mask time does not change with the step (the same filters, written a fixed number of times per step, whatever its size)"),
                (1, "says the all-digital step time and the data-by-data mask time grow in proportion to the step's tokens, by the student's factor k = (step tokens)/1,048,576"),
                (1, "concludes that the rewrite's ratio to the digital step falls as 1/k, and gives the student's ratio as the chapter's ratio divided by k"),
                (1, "derives the step at which the rewrite falls to 1% of the digital step (1,048,576 x the chapter's ratio / 0.01 tokens) and compares it with the student's own step")),
        exemplar=("The weight masks are the filters' spectra: written a fixed number of times per step, so their time is fixed.",
                  "The digital step and the data-by-data masks are paid per token: both grow by k, so the ratio falls as 1/k.",
                  "It reaches 1% only at 1,048,576 x ratio / 0.01 tokens, beyond my step: at my step it still costs over 1%."),
        wrong="assumes the step doubles whatever the parameters say, or says the weight masks grow with the tokens like the data-by-data ones (at most 1 point)."),
    'layer-major-engines-why':
        'says that with one micro-batch per GPU and no pipeline stages every GPU runs its own sequences layer by layer and the optimizer waits for every gradient, so the cluster visits each layer once per sweep: layer-major order, each GPU holding only its own sequences (gradient accumulation or pipelining breaks it); names feeding the engines (the numbers crossing the boundary per second) as the real cost.',
    'layer-major-fp32-why':
        "says one boundary fits in HBM, every layer's input only sharded over the cluster's HBM, and the kept spectra exceed the whole cluster's HBM, so they would live in host memory or be recomputed; says layer-major order makes a larger step pay in memory, in proportion.",
    'layer-major-micro-batch-why':
        "says at 4,096 tokens each rewrite writes filters with twice the bins (S + 1) but the step holds half as many micro-batches of the same size, so half as many rewrites: the two factors cancel, up to the rounding of each rewrite to whole frames and the bins' + 1, so the time is almost the same: the frames (and seconds) differ by well under one percent.",
    'not-map-block-sum-why':
        "counts (a) q b samples in and p b out, (b) q b in, 2 p q (b/2 + 1) numbers out, 2 p (b/2 + 1) back in and p b out; says the ledger charges the block sum's complex adds as digital work, so every block product must leave the optics: case (b).",
    'not-map-lm-head-why':
        "says the LM head costs the same per token at any sequence length; says only the long convolutions grow with S, and they are a small part of this model's step.",
    'explorer-share-drift-why':
        'says everything but the once-per-step transforms grows as T, and those add c to both the optical work and the step; says c/c = 1 exceeds a/b, so they pull the share up less and less as T grows, and it falls towards a/b.',
    'explorer-long-hyena-why':
        "says the all-digital step barely moves with the sequence length (its work is almost all paid per token, the same at any S), while the weight-mask time grows in proportion to the filters' bins (S + 1); so at long sequences the rewrite comes to about a whole all-digital step (nine tenths at 8,192 tokens, more beyond), for an optical share well under one percent.",
    'assumptions-two-switches-why':
        'says the two-sided spectrum multiplies the values by n/(n/2 + 1), just under 2, and the frames are rounded up to whole ones, so the prediction 2 x 16 x (ideal rate / binary rate) is not exact.',
    'assumptions-half-gain-why':
        "compares the share of the gain at that s with the defaults' (much higher); says s = 1 + 1/(1 - p) grows with p, so the larger the share the conventions give the engine, the faster it must be to deliver it; concludes the best case asks for an engine far faster than the GPUs (hundreds of times at this combination), not twice.",
    'rc-swiglu-why':
        'names the forward-only LM head (4HV per token fewer) as what pulls the count down; names the 4H lookup as a small addition; says the MLP width alone does not explain the sign.',
    'rc-ckpt-why':
        'says the LM head (forward only) and the input lookup are never recomputed; says only the blocks take the factor 4/3, so the whole is below it.',
    'rc-savanna-why':
        "compares the two one-switch ratios with Savanna's own default ratio; concludes that the model Savanna assumes (MLP rule and byte vocabulary), not its FFT conventions, makes most of the gap; says MFU across the two counts compares two models.",
    'ct-selective-long-why':
        'says the attention products grow with S per token while the rest does not; says long context is also where storing them costs the most memory, so the trade is worth more there.',
    'ct-card31-why':
        'names long-context training (up to 128K tokens), where attention costs far more per token than at 8,192, as undercounted; concludes the implied utilisation understates the real one.',
    'fpt-small-why': Rubric(
        points=((1, "writes exact/approximate = 12LH^2/N: the approximation takes N as 12LH^2, the exact ratio uses the model's own N, LM head included"),
                (1, "says SmolLM-135M's exact ratio is lower because its N exceeds 12LH^2: its LM head (49,152 x 576) is a large part of a small model"),
                (1, "predicts, before running, that TinyLlama-1.1B's exact ratio is higher than S/(6H): grouped-query attention and a 5,632-wide MLP make its blocks smaller than 12H^2 each, and its 32,000-word head is small, so N is below 12LH^2"),
                (1, "checks the prediction with the ledger for TinyLlama-1.1B at the student's own length and says the factor does not depend on S")),
        exemplar=("Exact over approximate is 12LH^2/N, the same at every length.",
                  "SmolLM-135M: the 49,152-word head lifts N above 12LH^2, so the exact ratio is lower.",
                  "TinyLlama-1.1B: GQA, a narrow MLP and a 32,000-word head put N below 12LH^2: higher, as the ledger confirms."),
        wrong="says a larger model always has a lower exact ratio, or that the gap grows with the sequence length (at most 1 point)."),
    'fpt-flash-why':
        'names QK^T as the product run twice; says the causal kernel skips the tiles above the diagonal (1/2 + b/(2S) of the matrix); says both gaps grow with S because attention grows as S^2 per sequence and the weight products as S.',
    'am-vocab-why':
        'says Llama-3.2-1B has fewer layers (16 against 22) to set against its dense LM head, so the head must shrink further; says its wider MLP pulls the other way, less.',
    'am-long-why':
        "says the long convolutions' FFTs cost O(log S) more per token as S grows (FFT length 2S) while the matrices' cost per token is constant.",
    'ms-break-even-why': Rubric(
        points=((1, "says most of the block-circulant model's optical FLOPs are block products, which keep the matrix rate, so only the FFTs and elementwise products are slowed and f must be large to make the optical work half the time"),
                (1, "predicts, before running, the break-even f for Hyena-2 at the same length: all its optical FLOPs are transforms and elementwise products, so f is of the order of (1 - p)/p with p its optical share of the step's FLOPs (the ledger's time model gives the exact value, within about a fifth of it)"),
                (1, "compares the two: Hyena-2's optical share is far smaller, so its f is far larger, and confirms it with the ledger (time_shares with the slowed rates)"),
                (1, "compares both f with the matrix-to-FFT rate ratio measured in the chapter and says on which side of break-even the measured machine lies")),
        exemplar=("The block products run at the matrix rate; only FFTs and elementwise work run f times slower.",
                  "Hyena-2's optical FLOPs are all slowed: f is about (1 - p)/p, with p well under one percent: in the hundreds.",
                  "Below the measured matrix-to-FFT ratio a model's optical work takes over half the time; I compare each f with it."),
        wrong="treats every optical FLOP as slowed by f for the block-circulant model, or answers Hyena-2 with the block-circulant f (at most 1 point)."),
}
