"""The marking rubrics of the explanation exercises, label -> rubric: for the teacher's edition only.

The student folder leaves this module out (book/_tools/student.py), so a student's library has no
rubric; the registry reads it when it is present (`Exercise.rubric`), and the teacher's book prints
each rubric in its exercise's solution.

Every explanation's rubric, practice or graded, is a `Rubric`: two to four criteria, each with its
whole points, a three-line exemplar (a full-marks answer, true for every variant of the exercise:
it speaks of the student's own value and gives the book's only as an example) and the typical
wrong answer with what it earns. A rubric is a string too (its whole text on one line, as the
solutions, the key and grade.py's rubrics.md print it), and its points are what the teacher marks
it out of (`instructor.max_points`)."""
from __future__ import annotations

from ..errors import LedgerError


class Rubric(str):
    """A marking rubric: `points` ((points, criterion), ...), `exemplar` (three lines, a full-marks
    answer) and `wrong` (the typical wrong answer and what it earns); `str(rubric)` is the whole
    text on one line and `max_points` the sum of the criteria's points."""

    points: tuple
    exemplar: tuple
    wrong: str

    def __new__(cls, points, exemplar, wrong):
        points = tuple(tuple(p) if isinstance(p, (tuple, list)) else (p,) for p in points)
        exemplar = tuple(exemplar)

        def one_line(value) -> bool:
            return isinstance(value, str) and bool(value.strip()) and "\n" not in value
        if not points or any(len(p) != 2 or isinstance(p[0], bool) or not isinstance(p[0], int) or p[0] <= 0
                             or not one_line(p[1]) for p in points):
            raise LedgerError("a rubric needs criteria, each a (positive whole number of points, one-line text) pair")
        if len(exemplar) != 3 or not all(one_line(line) for line in exemplar):
            raise LedgerError(f"a rubric's exemplar is three non-empty one-line strings (given: {len(exemplar)} lines)")
        if not one_line(wrong):
            raise LedgerError("a rubric needs the typical wrong answer and what it earns, on one line")
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


RUBRICS: dict[str, Rubric] = {
    'intro-4f-inversion': Rubric(
        points=((1, "shows that two forward transforms give u(-x): FFu(x') is the double integral of u(x) e^(-2 pi i xi (x + x')), whose xi integral is a delta at x = -x'"),
                (1, "finds that with the mask H between the lenses the output plane holds F(H . Fu)(x') = (h * u)(-x'): the convolution, mirrored (in both transverse directions for a spherical lens)"),
                (1, "says a mirror image is only a relabelling of the camera's pixels (read them from the other end), so no inverse transform, extra optics or arithmetic is needed to undo it")),
        exemplar=("FFu(x') = integral of u(x) delta(x + x') dx = u(-x'): two forward transforms give the input mirrored.",
                  "With the mask between them the output plane holds F(H . Fu)(x') = (h * u)(-x'): the convolution, mirrored.",
                  "A mirror image is a relabelling of the camera's pixels (read from the other end): nothing is computed to undo it."),
        wrong="says the second lens takes an inverse transform, so the output is h * u as it stands, or that a third lens or an inverse FFT must undo the mirror (at most 1 point: the convolution in the output plane)."),
    'intro-bigger-step-why': Rubric(
        points=((1, "says almost all of the forward work is paid per token or per sequence, so it doubles with the step and the share stays put"),
                (1, "names the exception: the FFT of each filter h into its spectrum, done once per step and shared by every sequence of the step"),
                (1, "says doubling the step halves that transform's weight in the share, so the share moves, and only in the fourth significant figure, that transform being a tiny part of the forward work")),
        exemplar=("The step holds 1,024 sequences; the work paid per token or per sequence doubles with them, so the share stays put.",
                  "The exception is the FFT of each filter into its spectrum: once per step, shared by every sequence, so its weight halves.",
                  "That optical transform is a tiny part of the forward work: the share falls only from 0.19850% to 0.19841%."),
        wrong="says the share doubles (or halves) with the step, or that no forward work depends on the step, so the share cannot move (at most 1 point: the work paid per token)."),
    'sixn-long-context-why': Rubric(
        points=((1, "says the rest of the step is exactly 6NT (N the model's matrix parameters, the LM head included, the embedding lookup and the norms left out) and the attention scores 12LSHT"),
                (1, "concludes the ledger's ratio is the estimate 12LSH/6N = 2LSH/N itself, not an approximation of it"),
                (1, "says the ratio grows linearly with S (their long length is 16 times their short one, and so is the ratio), so at long context the parameter count no longer describes the step")),
        exemplar=("The attention scores cost 12LSH per token, the rest of the step exactly 6N (N = 7.50 billion matrix parameters).",
                  "So the ratio is 12LSH/6N = 2LSH/N, the estimate itself (the book's 0.0715 at 2,048 and 1.14 at 32,768 tokens).",
                  "It is linear in S, 16 times larger at my long length than at my short one: at long context 6N no longer describes the step."),
        wrong="compares the scores with the whole step instead of the rest of it, or says the estimate only approximates the ledger's ratio (at most 1 point: the linear growth)."),
    'sixn-causal-why': Rubric(
        points=((1, "says causal masking halves the score products (QK^T and AV) only: the projections, the MLP and the LM head keep their FLOPs"),
                (1, "writes the step as 6NT + 6LSHT, numerically Kaplan et al.'s form"),
                (1, "gives the ratio (N + LSH)/(N + 2LSH) with their own model's N, L, H and their S, and says the ledger matches it to rounding")),
        exemplar=("Causal masking needs only the lower triangle of QK^T and AV: it halves the scores' 12LSHT and nothing else.",
                  "So the step is 6NT + 6LSHT, numerically Kaplan et al.'s form, and its ratio to 6NT + 12LSHT is (N + LSH)/(N + 2LSH).",
                  "With my model's N, L, H and my S the ledger's ratio matches that form to rounding (the book's Llama-3-8B at 8,192: 0.8888)."),
        wrong="halves the whole attention layer, projections included, or divides by 6NT instead of 6NT + 12LSHT (at most 1 point: what the mask halves)."),
    'sixn-recompute-why': Rubric(
        points=((1, "shows (O + o)/(F + f) = w O/F + (1 - w) o/f with w = F/(F + f): a weighted mean (the mediant), so it lies between O/F and o/f"),
                (1, "says Hyena-2's recomputed work is its forward pass less the digital LM head (about 6% of its forward FLOPs) and the once-per-step filter transforms, so o/f is close to its forward share"),
                (1, "says the block-circulant model's dense LM head is most of its forward FLOPs (about 83%) and is not recomputed, so o/f (about 85%) is far above its forward share (about 14%)")),
        exemplar=("(O + o)/(F + f) = w O/F + (1 - w) o/f with w = F/(F + f): a weighted mean, so it lies between O/F and o/f.",
                  "Hyena-2 recomputes its forward pass less the digital LM head (about 6%) and the per-step filter FFTs: o/f is close to its forward share.",
                  "The block-circulant model's dense LM head (about 83% of its forward FLOPs) is not recomputed: o/f is about 85%, far above its forward share (14%)."),
        wrong="says recomputation adds digital work only, so the share falls, or takes o/f to be the forward share for both models (at most 1 point: the weighted mean)."),
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
    'passes-hybrid-why': Rubric(
        points=((1, "says each attention layer removes that layer's long convolutions, so the optical work is the fraction of layers that keep Hyena: exactly 1 - f of Hyena-2's, at their own fraction f"),
                (1, "says the step's FLOPs barely move: at 4,096 tokens an attention layer, scores included, costs only a few percent more than the Hyena layer it replaces (whose in-projection is wider)"),
                (1, "concludes the optical work moves far more than the step's FLOPs: the dilution by added digital work is the smaller effect")),
        exemplar=("Each attention layer takes its layer's long convolutions away: the optical work is 1 - f of Hyena-2's (the book's f = 1/2: 0.500).",
                  "The step's FLOPs barely move: an attention layer costs a few percent more than its Hyena layer (at f = 1/2, 1.015 times Hyena-2's step).",
                  "So the share falls almost in proportion to the layers that keep Hyena; the dilution by added digital work is much the smaller effect."),
        wrong="says the share falls because the attention layers add digital work that dilutes it (at most 1 point)."),
    'passes-mask-count-why': Rubric(
        points=((1, "says the weight masks are the filters' spectra, the same for every sequence: one visit writes L x 2 x H x (S + 1) values, however many sequences the step holds"),
                (1, "says the dW masks hold conj(U), the spectrum of each sequence's own input, one per filter and per sequence"),
                (1, "concludes the dW count is one visit's weight-mask count (half of part (a)) times the step's 1,048,576/S sequences")),
        exemplar=("The weight masks are the filters' spectra, shared by every sequence: one visit writes L x 2 x H x (S + 1) values.",
                  "The dW masks hold conj(U), the spectrum of each sequence's own input, one per filter: one visit's count for every sequence.",
                  "So dW = L x 2 x H x (S + 1) x 1,048,576/S values, about 2.75 x 10^11 at any length (the book's S = 2,048: 512 visits' worth)."),
        wrong="multiplies part (a), two visits, by the sequences, or says the dW masks are the filters' spectra too (at most 1 point: the weight masks)."),
    'circ-dx-derivation-why': Rubric(
        points=((1, "shows the transpose of a circulant block is circulant with the reversed vector: C[r, c] = w[(r - c) mod b], so C^T[r, c] = w[(c - r) mod b] = (Rw)[(r - c) mod b]"),
                (1, "says a real vector reversed has the conjugate spectrum, so the transposed block's spectrum is conj(W_ij)"),
                (1, "concludes dx_j = sum_i C_ij^T g_i = IFFT(sum_i conj(W_ij) G_i)"),
                (1, "says the transforms swap sides against the forward pass (p FFTs of the gradient blocks in, q inverse FFTs out), and so does the sum (over the p output blocks: q(p - 1)(b/2 + 1) complex adds)")),
        exemplar=("C[r, c] = w[(r - c) mod b], so C^T[r, c] = w[(c - r) mod b]: circulant, with the reversed vector Rw.",
                  "A real vector reversed has the conjugate spectrum, so dx_j = sum_i C_ij^T g_i = IFFT(sum_i conj(W_ij) G_i).",
                  "The mirror of the forward pass: p FFTs of gradient blocks in, q inverse FFTs out, the sum over the p output blocks."),
        wrong="transposes the block without reversing its vector, so dx_j uses the forward spectra W_ij unconjugated (at most 1 point: the swapped sides)."),
    'circ-sequence-why': Rubric(
        points=((1, "says almost all of this model's optical work is in the circulant matrices, paid per token whatever the sequence length"),
                (1, "says only the long convolutions grow with S (their transforms' cost per token as log2(2S); their products, about one bin per token, stay put), and they are a small part of the step (about 2%)"),
                (1, "concludes the step share rises slightly and, what grows being transforms, the data-by-data part falls slightly")),
        exemplar=("From 1,024 to 16,384 tokens the step share goes from 11.94% to 12.45%, the data-by-data part from 21.23% to 20.24%.",
                  "Almost all of the optical work is in the circulant matrices, paid per token whatever the sequence length.",
                  "Only the long convolutions, about 2% of the step, grow with S, and only in their transforms: the share rises, the data part falls, a little."),
        wrong="says the data-by-data products grow with S as attention would, or that nothing in this model depends on S (at most 1 point)."),
    'circ-static-block-why': Rubric(
        points=((1, "names the smallest block, 64, as the best (a static share of about 18.7%)"),
                (1, "says the weight-masked products the static share keeps (forward and dX) grow as the block shrinks exactly as the data-by-data ones (dW) do: about 3MK/b FLOPs per token each"),
                (1, "concludes a smaller block enlarges both kinds of Fourier-domain product together and only the data-by-data kind is lost, so the static share still rises")),
        exemplar=("The smallest block, 64: a static share of 18.72% (Amdahl bound on counted FLOPs 1.230x).",
                  "Every Fourier-domain product costs about 3MK/b FLOPs per token: forward and dX with weight masks, dW with data masks.",
                  "So a smaller block grows the weight-masked products the static share keeps in step with the data-by-data ones it drops: it still rises."),
        wrong="credits the transforms for the rise, though they shrink with the block (as log2 b per token), or says the static share falls with the block (at most 1 point: the block)."),
    'amdahl-fft-constant-why': Rubric(
        points=((1, "says doubling every transform's price nearly doubles Hyena-2's share, its optical work being almost all transforms"),
                (1, "says the block-circulant model moves less (by about a third), its block products and digital sums keeping their price"),
                (1, "concludes the picture does not change: Hyena-2 stays far below one percent")),
        exemplar=("Hyena-2: 0.146% to 0.283% (Amdahl 1.0015x to 1.0028x): its optical work is almost all transforms, so the share nearly doubles.",
                  "Block-circulant: 12.19% to 16.06% (1.139x to 1.191x): its block products and digital sums keep their price, so it moves less.",
                  "The picture stands: Hyena-2 stays far below one percent, and neither bound reaches 1.2x."),
        wrong="says every share doubles with the transforms' price, or that the complex FFT's price makes the engine worth building for Hyena-2 (at most 1 point)."),
    'amdahl-block-size-why': Rubric(
        points=((1, "predicts, before running, the direction of the step share and the static share at the student's own block against 256, from the circulant products' cost of about 3MK/b per token (they shrink as b grows, grow as it shrinks)"),
                (1, "says the transforms change only with log2 b and the dense LM head not at all, so the dense LM head's share of the step sets how far the shares can move"),
                (1, "predicts that Llama-3.2-1B's static share is lower than Llama-3-8B's at the same block, because its dense LM head (128,256 x 2,048) is a much larger part of its step (16 narrow layers against 32 wide ones)"),
                (1, "confirms both predictions with the ledger (shape=Llama-3.2-1B) and says the static share moves less than the step share because the data-by-data products it leaves out also change with b")),
        exemplar=("Circulant products cost about 3MK/b per token; transforms grow as log2 b; the dense head stays fixed.",
                  "So my block moves both shares the way 1/b moves; the static share less, its excluded data-by-data products move with b too.",
                  "Llama-3.2-1B: the head is a larger part of its step, so its static share is lower at every block; the ledger agrees."),
        wrong="says a smaller model has a larger optical share because everything is smaller in proportion, ignoring that the LM head does not shrink with the layers (at most 2 points)."),
    'amdahl-finite-speedup-why': Rubric(
        points=((2, "derives s from half the gain: 1/((1 - p) + p/s) = 1 + p/(2(1 - p)) gives p/s = p(1 - p)/(2 - p), so s = (2 - p)/(1 - p) = 1 + 1/(1 - p)"),
                (1, "says for a small p that is barely more than 2 (2.11 for this model's static share of 9.66%): an engine twice as fast as the GPUs earns half of what Amdahl allows"),
                (1, "concludes the other half needs s to grow without bound, so the bound is set by p, not by the engine's speed once it is a few times the GPUs'")),
        exemplar=("Half the gain: 1/((1 - p) + p/s) = 1 + p/(2(1 - p)), so p/s = p(1 - p)/(2 - p) and s = (2 - p)/(1 - p) = 1 + 1/(1 - p).",
                  "For a small p that is barely more than 2: p = 9.66% gives s = 2.11, so an engine twice as fast as the GPUs earns half the gain.",
                  "The other half needs s to go to infinity: the bound is set by p, not by the engine's speed."),
        wrong="halves the bound 1/(1 - p) instead of the gain 1/(1 - p) - 1 and gets s = p/(1 - p), an engine slower than the GPUs (at most 1 point: the reading for a small p)."),
    'masks-encoding-why': Rubric(
        points=((1, "says the superpixel (4 x 4 mirrors per complex value) costs 16 times the frames, but binary patterns streamed in the DLPC900's video-pattern mode (24 per frame of its 120 Hz video input) go at 2,880 Hz against the idealised 1,031 Hz: 16 x 1,031/2,880, about 5.73 (not 16, nor at the 9,523 Hz that holds only for the 400 to 480 patterns stored in the controller before the step, while a step's masks are new)"),
                (1, "says the two-sided spectrum has n values per transform instead of n/2 + 1: n/(n/2 + 1) = 4,096/2,049, about 1.9990"),
                (1, "says that factor is just under 2 because the one-sided count holds both the zero and the Nyquist bin"),
                (1, "says the ledger's time factors differ slightly from these value factors because each rewrite's values are packed into whole frames, rounded up")),
        exemplar=("Superpixel: 16x the frames, streamed at 2,880 binary patterns/s (video-pattern mode) against the idealised 1,031/s: 16 x 1,031/2,880 = 5.73.",
                  "Two-sided: n = 4,096 values per transform, not n/2 + 1 = 2,049, a factor 1.9990: the one-sided count holds the zero and the Nyquist bin.",
                  "The ledger's time factors (5.719 and 1.996) differ a little from these: each rewrite's values fill whole frames, rounded up."),
        wrong="takes the superpixel's factor as 16, its binary patterns timed at the idealised rate, and the two-sided factor as exactly 2 (at most 2 points: n against n/2 + 1, and the whole frames)."),
    'masks-step-size-why': Rubric(
        points=((1, "predicts for Hyena-2 that the weight-mask time does not change with the step while the all-digital step and the data-by-data masks grow by the student's factor k = (step tokens)/1,048,576, and says why (the same filters, written a fixed number of times per step; the digital work paid per token)"),
                (1, "concludes that the rewrite's ratio to the digital step falls as 1/k, and gives the student's ratio as the chapter's ratio divided by k"),
                (1, "says the same 1/k law holds for the block-circulant model, because its weight masks too are written a fixed number of times per step and its digital work is paid per token, so a ratio above 1 at the chapter's step falls below 1 only past k equal to that ratio"),
                (1, "derives the block-circulant step at which its rewrite falls to 1% of its digital step (1,048,576 x its ratio at the chapter's step / 0.01 tokens, over a hundred times the chapter's step) and compares it with the student's own step")),
        exemplar=("Hyena-2: the weight masks are written a fixed number of times per step, so fixed; the digital step and data masks grow by k.",
                  "So the ratio falls as 1/k, and the same holds for the block-circulant model: its masks are per step, its work per token.",
                  "Its ratio is above 1 at the chapter's step, so 1% needs 1,048,576 x ratio / 0.01 tokens: far beyond my step."),
        wrong="assumes the step doubles whatever the parameters say, says the weight masks grow with the tokens like the data-by-data ones, or that the block-circulant model's larger ratio changes the law (at most 1 point)."),
    'layer-major-engines-why': Rubric(
        points=((1, "says that with one micro-batch per GPU and no pipeline stages each GPU runs all of its own sequences (the statement's 256 over 64 GPUs: 4 each) through layer 1, then layer 2, up and back down"),
                (1, "says the optimizer waits for every gradient, so the GPUs move in step and the cluster visits each layer once per sweep: layer-major order, each GPU holding only its own sequences"),
                (1, "says gradient accumulation over several micro-batches, or pipeline stages, break it: every visit of a layer then rewrites its masks"),
                (1, "names feeding the engines as the real cost: the numbers that cross the optical boundary per second, in and out (for one shared engine, the step's crossings within one all-digital step, its counted FLOPs at the sustained rate)")),
        exemplar=("One micro-batch per GPU, no pipeline stages: each GPU runs its 4 sequences through layer 1, then layer 2, up and back down.",
                  "The optimizer waits for every gradient: the cluster visits each layer once per sweep, layer-major (accumulation or pipelining would break it).",
                  "What remains is feeding the engines: a shared one takes 14.9 billion numbers/s per GPU, in and out, at 8,192 tokens (64 GPUs: 956 billion)."),
        wrong="says layer-major order needs all of the step's sequences on one GPU, or costs memory beyond what data parallelism already holds (at most 1 point: the cost of feeding the engines)."),
    'layer-major-fp32-why': Rubric(
        points=((1, "says where one boundary (T x H x 4 bytes, 17.2 GB per 1,048,576 tokens) can live for their step: in one 80 GB GPU's HBM up to four such steps, only sharded over the cluster's HBM beyond"),
                (1, "says every layer's input (32 boundaries) fits only sharded over the cluster's HBM (64 x 80 GB = 5.12 TB)"),
                (1, "says the kept spectra exceed the whole cluster's HBM, so they would live in host memory or be recomputed"),
                (1, "says layer-major order makes a larger step pay in memory, in proportion: all three grow with the step's tokens")),
        exemplar=("A boundary holds T x H x 4 bytes, 17.2 GB per 1,048,576 tokens: one 80 GB GPU holds the book's 68.7 GB; a step over four such, only sharded.",
                  "Every layer's input is 32 boundaries (the book's 2.20 TB): it fits only sharded over the 64 GPUs' 5.12 TB of HBM.",
                  "The kept spectra, 2.2 TB per 1,048,576 tokens, exceed the cluster's HBM: host memory or recompute; a larger step pays in proportion."),
        wrong="compares every figure with one GPU's 80 GB, or every figure with the whole cluster's HBM, and puts all three in the same place (at most 2 points)."),
    'layer-major-micro-batch-why': Rubric(
        points=((1, "says that at 4,096 tokens each filter has about twice the bins (S + 1 = 4,097 against 2,049), so each rewrite takes about twice the frames"),
                (1, "says the step then holds half as many sequences, so half as many micro-batches of the same size and half as many rewrites"),
                (1, "concludes the two factors cancel up to the bins' + 1 and the rounding of each rewrite to whole frames: the frames and seconds differ by well under one percent")),
        exemplar=("At 4,096 tokens each filter has 4,097 bins against 2,049: a rewrite takes 1,075 frames of the default device against 538.",
                  "The step holds half as many sequences, so half as many micro-batches of my size: half as many rewrites.",
                  "The factors cancel but for the + 1 and the whole frames: 1,075 against 2 x 538 = 1,076, under 0.1% apart."),
        wrong="doubles the time for the longer filters, or halves it for the fewer rewrites, counting only one of the two factors (at most 1 point)."),
    'not-map-block-sum-why': Rubric(
        points=((1, "counts (a): q b samples in and p b out per token"),
                (2, "counts (b): q b samples in, 2 p q (b/2 + 1) numbers out (p q complex bins), 2 p (b/2 + 1) back in (the p summed spectra) and p b out"),
                (1, "says the ledger charges the block sum's p (q - 1)(b/2 + 1) complex adds as digital work, so every block product must leave the optics: case (b), the count consistent with the shares")),
        exemplar=("(a) Coherent sum: q b samples in, p b out, (p + q) b numbers per token.",
                  "(b) Digital sum: q b in, 2 p q (b/2 + 1) out, 2 p (b/2 + 1) back in, p b out: about q times as many leave the optics.",
                  "The ledger charges the block sum's adds as digital work, so every block product leaves: case (b) (the book's blocks of 512: 4.38x the numbers)."),
        wrong="says the ledger assumes (a) because the optics sums coherently for free (at most 2 points: the two counts)."),
    'not-map-lm-head-why': Rubric(
        points=((1, "says the dense LM head costs the same per token at any sequence length (6HV FLOPs per token: forward, dX and dW)"),
                (1, "says the circulant matrices cost the same per token too, and only the long convolutions grow with S (their transforms' cost per token as log2(2S))"),
                (1, "says the long convolutions are a small part of this model's step (about 2%), so the share barely moves, falling slightly as S grows")),
        exemplar=("The dense LM head costs 6HV FLOPs per token (forward, dX and dW) at any sequence length.",
                  "The circulant matrices cost the same per token too; only the long convolutions grow with S, their transforms as log2(2S) per token.",
                  "They are about 2% of the step, so the head's share falls only slightly with S (the book's 85.29% at 2,048 and 85.05% at 8,192 tokens)."),
        wrong="says the LM head grows with S as attention does, or that nothing in the model depends on S (at most 1 point)."),
    'explorer-share-drift-why': Rubric(
        points=((1, "says everything but the once-per-step transforms is paid per token or per sequence and grows as T (the optical part a T, the step b T), while those transforms add c to both"),
                (1, "says c/c = 1 exceeds a/b, so they pull the share above a/b, by less and less as T grows: (a T + c)/(b T + c) falls towards a/b"),
                (1, "shows it: (a T + c)/(b T + c) - a/b = c (b - a)/(b (b T + c)), positive and shrinking as T grows")),
        exemplar=("All but the once-per-step transforms grows as T: optical a T, step b T; those transforms add c to both.",
                  "Since c/c = 1 exceeds a/b they lift the share by c (b - a)/(b (b T + c)), less and less as T grows: it falls towards a/b.",
                  "At the default row a/b = (O - c)/(F - c) = 12.185% against 12.188% with them: one share serves every step size."),
        wrong="says the share falls because the once-per-step transforms grow with the step, or that it tends to zero (at most 1 point)."),
    'explorer-long-hyena-why': Rubric(
        points=((1, "says the all-digital step barely moves with the sequence length: its work is almost all paid per token, the same at any S"),
                (1, "says the weight-mask time grows in proportion to the filters' bins (S + 1), whole frames aside, whatever the step's size"),
                (1, "concludes that at long sequences the rewrite comes to about a whole all-digital step or more (nine tenths at 8,192 tokens, 1.8 steps at 16,384, 3.6 at 32,768), for an optical share well under one percent")),
        exemplar=("On the panel's defaults (idealised device, 64 GPUs) the all-digital step barely moves, 2.314 s at 2,048 tokens, 2.315 s at 32,768.",
                  "Each filter's mask holds S + 1 bins: the rewrite grows from 0.52 s at 2,048 tokens to 2.08, 4.17 and 8.33 s at 8,192, 16,384 and 32,768.",
                  "So it is nine tenths of a step at 8,192 tokens, 1.8 and 3.6 steps beyond, for an optical share of 0.16% to 0.18%."),
        wrong="says the rewrite grows with the step's tokens or its number of sequences, or that the digital step grows with S as attention would (at most 1 point)."),
    'assumptions-two-switches-why': Rubric(
        points=((1, "says the two-sided spectrum multiplies the values by n/(n/2 + 1), just under 2 at every transform length (256/129 for the circulant blocks, 8,192/4,097 for the filters), the one-sided count holding the zero and the Nyquist bin"),
                (1, "says the frames are rounded up to whole ones, so a ratio of frames is not exactly the ratio of values"),
                (1, "concludes the prediction 2 x 16 x 1,031/2,880 (the idealised rate over the rate for streamed binary patterns) is not exact: the ledger's factor lies just below it, almost all of the difference from n/(n/2 + 1)")),
        exemplar=("The two-sided spectrum multiplies the values by n/(n/2 + 1), under 2: 256/129 for the blocks, 8,192/4,097 for the filters.",
                  "Frames are whole, ceil(values / values per frame), so the frames' ratio is not exactly the values' ratio.",
                  "So the factor is just under 2 x 16 x 1,031/2,880 = 11.46: the ledger gives 11.40, the gap almost all from n/(n/2 + 1)."),
        wrong="names only the rounding to whole frames, or blames the rate for streamed patterns, which the prediction already holds (at most 1 point)."),
    'assumptions-half-gain-why': Rubric(
        points=((1, "computes the combination's half-gain speed-up from its step share, s = 1 + 1/(1 - p): about 255 for p = 99.6%, against 2.14 at the defaults"),
                (1, "compares the share of the gain at their s with the defaults' at the same s: a few percent at most for the combination, about half or more at the defaults"),
                (1, "says s = 1 + 1/(1 - p) grows with p, without bound as p nears 1: the larger the share the conventions give the engine, the faster it must be to deliver it"),
                (1, "concludes the best case asks for an engine hundreds of times faster than the GPUs, not twice, even on counted FLOPs with the engine's input, readout and masks free")),
        exemplar=("That combination gives p = 99.6% and a 254x bound: half its gain needs s = 1 + 1/(1 - p) = 255, against 2.14 at the defaults.",
                  "At my s the step gets a few percent of that gain at most (the book's s = 4: 1.2%); the defaults earn half or more of theirs (72.5% at s = 4).",
                  "s grows with p: the more of the step the conventions hand the engine, the faster it must be; here hundreds of times the GPUs, on counted FLOPs."),
        wrong="reads the combination's higher bound as good news for any given engine, or reuses the defaults' s of about 2 (at most 1 point)."),
    'rc-swiglu-why': Rubric(
        points=((1, "says -ff 3 and -ff 4 make the MLP 12,288 and 16,384 wide, 2,048 either side of the ledger's 14,336, so the MLP width alone puts the two counts equally far below and above the ledger: it cannot decide which is closer, and so not the sign of the answer"),
                (1, "names the forward-only LM head (4HV per token fewer than the ledger's 6HV) as what pulls the count down"),
                (1, "names the 4H input lookup as a small (here negligible) addition"),
                (1, "concludes that -ff 4 is closer, above the ledger by the MLP's excess less the head's saving, at their length")),
        exemplar=("-ff 3 and -ff 4 give MLPs of 12,288 and 16,384, 2,048 either side of 14,336: alone, equally far below and above (the book's S: 8.34%).",
                  "The cookbook charges the LM head forward only, 4HV per token fewer than the ledger's 6HV: that pulls both counts down (3.63% at 8,192 tokens).",
                  "So -ff 4 is closer, above the ledger by the difference (the book's +4.71%); the 4H lookup adds almost nothing."),
        wrong="explains the whole difference by the MLP width, or takes the lookup for what pulls the count down (at most 1 point)."),
    'rc-ckpt-why': Rubric(
        points=((1, "says checkpointing runs every block's forward again, so the blocks' count takes the factor 4/3 (four forward passes' worth instead of three)"),
                (1, "says the LM head (2HV per token, forward only) and the 4H input lookup are charged once in both counts: never recomputed"),
                (1, "concludes the whole is a weighted mean of 4/3 and 1, so below 4/3, and nearer it at longer S, where the blocks' attention grows")),
        exemplar=("Checkpointing runs each block's forward again: the blocks cost four forward passes' worth instead of three, the factor 4/3.",
                  "The LM head (2HV per token, forward only) and the 4H lookup are charged once in both counts: never recomputed.",
                  "So the ratio is a weighted mean of 4/3 and 1, below 4/3 (the book's 1.3269 at 4,096 tokens), nearer 4/3 as S grows."),
        wrong="applies 4/3 to the whole count, or says the LM head is recomputed with the blocks (at most 1 point)."),
    'rc-savanna-why': Rubric(
        points=((1, "compares the two one-switch ratios, the vocabulary's (theirs: about 0.94 of the ledger) and the MLP rule's (0.8398), with Savanna's own default ratio (0.7764)"),
                (1, "says the two gaps add up to nearly all of Savanna's, so the model Savanna assumes (MLP rule and byte vocabulary), not its FFT conventions, makes most of the gap"),
                (1, "says an MFU from Savanna's count and one from a Llama-shaped count compare two models; configuring the vocabulary closes part of the gap, the MLP rule stays")),
        exemplar=("My vocabulary alone gives about 0.94 of the ledger (the book's 512: 0.9371), the MLP rule alone 0.8398, Savanna's own default 0.7764.",
                  "The two gaps add up to nearly all of it (the book's pair together: 0.7769): the model Savanna assumes, not its FFT conventions.",
                  "So MFU from Savanna's count and from a Llama-shaped one compare two models; configuring the vocabulary closes only part of the gap."),
        wrong="puts the gap on Savanna's FFT conventions (length S, constant 5, no per-step transforms) (at most 1 point: the comparison)."),
    'ct-selective-long-why': Rubric(
        points=((1, "writes the tax as the attention products' forward FLOPs over the step's: 4LSH per token (QK^T and AV, half each) over 6N + 12LSH"),
                (1, "says the attention products grow with S per token while the rest of the step does not, so the tax grows with S (towards a third of the step)"),
                (1, "says long context is also where storing the S x S scores costs the most memory, so the trade is worth more there")),
        exemplar=("The tax is the attention products' forward FLOPs, 4LSH per token (QK^T and AV, half each), over the step's 6N + 12LSH.",
                  "Per token they grow with S and the rest does not: the tax rises towards a third of the step (the book's 17.8% at 32,768 tokens).",
                  "Long context is also where storing their S x S scores costs the most memory, so recomputing them is worth more there."),
        wrong="says the whole forward pass is recomputed, or counts QK^T alone (at most 1 point)."),
    'ct-card31-why': Rubric(
        points=((1, "names Llama 3.1's long-context training (up to 128K tokens) as the stage a count at 8,192 tokens undercounts"),
                (1, "says attention costs far more per token there than at 8,192 (its cost per token grows with S), so the run did more FLOPs in the same GPU-hours than the count says"),
                (1, "concludes that the implied utilisation understates the real one, for that stage's attention (document masking, which the card does not quantify, pulls the other way)")),
        exemplar=("Llama 3.1 added long-context training, up to 128K tokens, where attention costs far more per token than at 8,192.",
                  "A count at 8,192 tokens leaves that out: the run did more FLOPs in the same GPU-hours than the count says.",
                  "So the implied utilisation (the book's 14.8%) understates the real one, unless document masking, which pulls the other way, outweighs it."),
        wrong="says Megatron's causal count leaves out half of the attention, so the ledger's full count is the real work (at most 1 point: the direction)."),
    'fpt-small-why': Rubric(
        points=((1, "writes exact/approximate = 12LH^2/N: the approximation takes N as 12LH^2, the exact ratio uses the model's own N, LM head included"),
                (1, "says SmolLM-135M's exact ratio is lower because its N exceeds 12LH^2: its LM head (49,152 x 576) is a large part of a small model"),
                (1, "predicts, before running, that TinyLlama-1.1B's exact ratio is higher than S/(6H): grouped-query attention and a 5,632-wide MLP make its blocks smaller than 12H^2 each, and its 32,000-word head is small, so N is below 12LH^2"),
                (1, "checks the prediction with the ledger for TinyLlama-1.1B at the student's own length and says the factor does not depend on S")),
        exemplar=("Exact over approximate is 12LH^2/N, the same at every length.",
                  "SmolLM-135M: the 49,152-word head lifts N above 12LH^2, so the exact ratio is lower.",
                  "TinyLlama-1.1B: GQA, a narrow MLP and a 32,000-word head put N below 12LH^2: higher, as the ledger confirms."),
        wrong="says a larger model always has a lower exact ratio, or that the gap grows with the sequence length (at most 1 point)."),
    'fpt-flash-why': Rubric(
        points=((1, "names QK^T as the product run twice: the backward recomputes it, seven attention products where the model count has six"),
                (1, "says the causal kernel skips the tiles above the diagonal, computing 1/2 + b/(2S) of each product, which puts the step below the model count; without the mask the seventh product is full and the step above it"),
                (1, "says both gaps grow in size with S because attention grows as S^2 per sequence while the weight products grow as S")),
        exemplar=("The backward recomputes QK^T: seven attention products where the model count has six.",
                  "The causal kernel runs only the tiles on or below the diagonal, 1/2 + b/(2S) of each product: the step falls below the model count.",
                  "Attention grows as S^2 per sequence, the weight products as S: both gaps grow with S (the book's 65,536: -28.9% causal, +11.6% unmasked)."),
        wrong="names AV or the softmax as the product run twice, or says the causal kernel does exactly half and the gaps stay fixed (at most 1 point)."),
    'am-vocab-why': Rubric(
        points=((1, "says it is not 32,000 but below it: the two models differ in more than the vocabulary"),
                (1, "says Llama-3.2-1B has fewer layers (16 against 22) to set against its dense LM head, so its head must shrink further before the two steps divide the same way"),
                (1, "says its wider MLP (8,192 against 5,632, all of it circulant) pulls the other way, but less")),
        exemplar=("No: below 32,000 at every block from 64 to 512 (the book's 256: 27,914 words); the models differ in more than the vocabulary.",
                  "Llama-3.2-1B has 16 layers against 22 to set against its dense LM head, so its head must shrink further.",
                  "Its wider MLP (8,192 against 5,632, all circulant) pulls the other way, but less: its 16 layers hold less circulant work than TinyLlama's 22."),
        wrong="says the two models differ only in the vocabulary, so the answer is TinyLlama's 32,000 (at most 1 point)."),
    'am-long-why': Rubric(
        points=((1, "says a real FFT of length n = 2S costs 2.5 n log2 n, so the long convolutions' transforms cost log2(2S)/log2(4,096) times as much per token as at 2,048 tokens: O(log S) more per token as S grows"),
                (1, "says the matrices' cost per token does not change with S, nor the elementwise products' (one per bin, about one bin per token per channel)"),
                (1, "concludes the step share grows for a length above 2,048 and falls for one below it, at their own length")),
        exemplar=("A real FFT of n = 2S costs 2.5 n log2 n: per token the transforms cost log2(2S)/log2(4,096) times the 2,048-token figure.",
                  "The matrices' cost per token does not change with S, nor the products' (about one bin per token): only the transforms move.",
                  "So the share grows above 2,048 tokens and falls below (the book's 16,384: 1.25 times the transforms, 1.23% against 1.00%)."),
        wrong="says the convolutions cost S (or S^2) times more per token, as attention would, or that the share grows whatever the length (at most 1 point)."),
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
