"""The article, sentence by sentence: every sentence of §1–§8 that states mathematics, judged.

One declarative table, :data:`ENTRIES`. Each entry quotes the seed exactly (``zh``; ``……`` joins
the fragments of one passage that the seed splits over lines), glosses it in English, gives one
verdict of :data:`VERDICTS` with its reason in a line or two, and names the claims (by id) or the
user check (``mathcheck check LHS RHS`` and the status it must give) that support the verdict:

* ``exact`` — true as printed, as its author meant it;
* ``holds-with-conditions`` — true under conditions the sentence leaves out (the reason names them);
* ``imprecise`` — the idea is right, the wording is not (the reason says what is true instead);
* ``wrong`` — false as printed;
* ``not-mathematics`` — it mentions mathematics but states none (advice, analogy, anecdote).

``mathcheck audit --all`` lists the table; the writeup's audit section renders it; docs/claims.md
counts it. ``tests/test_audit.py`` checks that every sentence of the seed with a formula or a
mathematical keyword is quoted by an entry and that every quote occurs in the seed.

The table is values only. An entry is checked when it is built (:class:`Entry`): an unknown
verdict word, a section outside §1–§8, an ``imprecise`` or ``wrong`` verdict without a reason are
errors at import, e.g. ``Entry("§2.1", "…", "…", "exactly", "…")`` raises :class:`AuditError`.
The claims an entry names are checked against the registry by the command that lists them.
"""

from __future__ import annotations

from dataclasses import dataclass

from mathcheck.claim import SEED_VERDICTS

#: The verdict words, mildest first (the claims' own, :data:`mathcheck.claim.SEED_VERDICTS`).
VERDICTS = SEED_VERDICTS

#: The sections the audit covers, with the seed's headings (§9 is beyond the article).
SECTIONS = {
    "§1.1": "每个数学分支到底用在哪",
    "§1.2": "学习顺序背后的逻辑",
    "§2.1": "词向量和矩阵乘法：一次空间变换",
    "§2.2": "点积、相似度、除以根号 d_k",
    "§2.3": "掌握到什么程度才算够用",
    "§3.1": "指数运算把“分数”变成“概率”",
    "§3.2": "最大似然与交叉熵：语言模型在学什么",
    "§3.3": "采样与温度：生成高频里的数学旋钮",
    "§4.1": "链式法则：梯度是怎么一路传回去的",
    "§4.2": "梯度下降和 Adam：为什么“步长”不统一",
    "§4.3": "归一化为何在 Transformer 里成了标配",
    "§5.1": "从“信息量”到“熵”",
    "§5.2": "交叉熵和 KL 散度：只差一个常数",
    "§5.3": "知识蒸馏与对齐：KL 散度的其他舞台",
    "§6.1": "排列不变性：注意力天生“不认顺序”",
    "§6.2": "位置编码里的三角恒等式",
    "§6.3": "复杂度里的组合数：为什么 n² 让人头疼",
    "§7.1": "前向传播的每一步，对应什么形状",
    "§7.2": "一套我实测有效的“对照法”",
    "§8.1": "我踩过的坑",
    "§8.2": "推荐的学习节奏",
}

#: What ``……`` means in a quote: the seed's text continues elsewhere (another line of one passage).
ELLIPSIS = "……"


class AuditError(ValueError):
    """An entry of the table that cannot be right (unknown verdict, missing reason, bad section)."""


@dataclass(frozen=True)
class Entry:
    """One judged sentence (or one passage of consecutive sentences) of the seed.

    ``check`` is a user check that shows the verdict where no claim does:
    ``(lhs, rhs, status)`` or ``(lhs, rhs, status, "p=positive")`` — run as
    ``mathcheck check LHS RHS [--assume …]``, it must give ``status``.
    """

    section: str
    zh: str
    en: str
    verdict: str
    reason: str
    claims: tuple[str, ...] = ()
    check: tuple[str, ...] = ()

    def __post_init__(self):
        where = f"audit entry {self.section} {self.zh[:24]!r}"
        if self.verdict not in VERDICTS:
            raise AuditError(f"{where}: unknown verdict {self.verdict!r}; use one of {', '.join(VERDICTS)}")
        if self.section not in SECTIONS:
            raise AuditError(f"{where}: section {self.section!r} is not one of §1.1–§8.2")
        if not self.zh.strip() or not self.en.strip():
            raise AuditError(f"{where}: needs the seed's words (zh) and an English gloss (en)")
        if not self.reason.strip():
            raise AuditError(f"{where}: a {self.verdict} verdict needs its reason")
        if self.check and not (3 <= len(self.check) <= 4 and self.check[2] in ("proved", "refuted")):
            raise AuditError(f"{where}: check is (lhs, rhs, 'proved'|'refuted'[, assume])")

    @property
    def fragments(self) -> tuple[str, ...]:
        """The pieces of the quote that each occur in the seed as written."""
        return tuple(f for f in self.zh.split(ELLIPSIS) if f)

    @property
    def check_command(self) -> str:
        """The user check as a command line, e.g. ``mathcheck check "exp(3)/exp(2)" "E"``."""
        if not self.check:
            return ""
        lhs, rhs, _, *assume = self.check
        return f'mathcheck check "{lhs}" "{rhs}"' + "".join(f" --assume {a}" for a in assume)


E = Entry

ENTRIES: tuple[Entry, ...] = (
    # --- §1 why a map ---------------------------------------------------------------------------
    E(
        "§1.1",
        "另一种是过度投入，从头啃完整本数学教材，结果发现 90% 的内容暂时用不上。",
        "The other is to over-invest, chewing through whole textbooks, only to find 90% of the content is of no use for now.",
        "not-mathematics",
        "an anecdotal estimate, not a measured or derivable figure",
    ),
    E(
        "§1.1",
        "线性代数解释“向量是怎么变成 QKV 的”，概率统计解释“为什么输出要过 softmax”，信息论解释“训练时的损失函数在算什么”，"
        "组合数学则能解释一个很隐蔽的问题：“模型天生不认顺序，位置信息哪来的？",
        "Linear algebra explains how vectors become Q, K, V; probability why the output goes through softmax; information "
        "theory what the training loss computes; combinatorics a hidden question: the model is blind to order, so where "
        "does position come from?",
        "not-mathematics",
        "a map of topics; the order-blindness itself is judged in §6.1 (it is a symmetry of attention, "
        "permutation equivariance)",
        ("attention-permutation-equivariance",),
    ),
    E(
        "§1.2",
        "你要先看懂输入从 word embedding 变成 attention 输出的每一步，这个过程完全是线性代数；",
        "First understand every step from the word embeddings to the attention output: this process is entirely linear algebra;",
        "imprecise",
        "the path to the attention output has a softmax, which is not linear: softmax(2z) ≠ 2·softmax(z), "
        "so Attn(X) is not a linear function of X; only the projections XW are",
        ("softmax-simplex",),
        ("exp(2*a)/(exp(2*a) + exp(2*b))", "2*exp(a)/(exp(a) + exp(b))", "refuted"),
    ),
    E(
        "§1.2",
        "先建立“向量如何在网络里流动”的画面，再往细节里钻，效率至少翻一倍。",
        "Build the picture of how vectors flow through the network first, then dig into details: efficiency at least doubles.",
        "not-mathematics",
        "a claim about study efficiency, not measured",
    ),
    # --- §2.1 ----------------------------------------------------------------------------------
    E(
        "§2.1",
        "假设一个词的向量维度是 512，一个句子有 10 个词，那么输入矩阵的形状就是 (10, 512)。",
        "Suppose a word vector has dimension 512 and a sentence has 10 words; the input matrix then has shape (10, 512).",
        "exact",
        "one row per token, the convention of the seed and of PyTorch (L×D)",
        ("qkv-projection-shapes",),
    ),
    E(
        "§2.1",
        "这 10 行代表 10 个词，512 列代表每个词在语义空间里的坐标。",
        "The 10 rows stand for the 10 words, the 512 columns for each word's coordinates in semantic space.",
        "exact",
        "row r is token r's embedding, a point of R^512",
        ("qkv-projection-shapes",),
    ),
    E(
        "§2.1",
        "QKV 变换本质上就是三次矩阵乘法：……X (10, 512) @ W_Q (512, 64) -> Q (10, 64) X (10, 512) @ W_K (512, 64) -> "
        "K (10, 64) X (10, 512) @ W_V (512, 64) -> V (10, 64)",
        "The QKV transform is in essence three matrix products: X (10, 512) @ W_Q (512, 64) -> Q (10, 64), and likewise for K and V.",
        "exact",
        "(L×D)(D×d_k) is L×d_k for any L, D, d_k; d_k = 64 = 512/8 is one head's width in the original model",
        ("qkv-projection-shapes",),
    ),
    E(
        "§2.1",
        "W_Q、W_K、W_V 都是可学习的线性变换矩阵。",
        "W_Q, W_K, W_V are all learnable linear-transformation matrices.",
        "holds-with-conditions",
        "linear when the projection has no bias (the paper's form, nn.Linear(bias=False)); "
        "nn.Linear's default bias makes it affine, x ↦ xW + b",
        ("qkv-projection-shapes",),
    ),
    E(
        "§2.1",
        "它们的作用，是把同一批词向量投影到三个不同的空间里：",
        "Their role is to project the same word vectors into three different spaces:",
        "holds-with-conditions",
        "'project' in the ML sense: a linear map R^512 → R^64; not a projection in the linear-"
        "algebra sense (P² = P needs a square matrix)",
        ("qkv-projection-shapes",),
    ),
    E(
        "§2.1",
        "矩阵乘法在这里的实际含义，是对向量做旋转、缩放、拉伸的组合变换。",
        "Matrix multiplication here means a combination of rotating, scaling and stretching the vectors.",
        "imprecise",
        "by the SVD W = UΣVᵀ a matrix rotates (or reflects), scales each axis, and rotates again — but a "
        "512×64 W also discards at least 448 directions (rank ≤ 64: W x = 0 for nonzero x); scaling and "
        "stretching are the same operation",
    ),
    E(
        "§2.1",
        "你说的“线性变换”并不是什么高深概念，可以用一个生活类比理解：同样一个物体，从正面拍一张照片、从侧面拍一张照片、"
        "从俯视拍一张照片，三张照片反映的信息角度不同。",
        "A 'linear transformation' is nothing deep; an everyday analogy: photograph one object from the front, the side and "
        "above, and the three photos show different angles of its information.",
        "not-mathematics",
        "an analogy (three views of one object), not a statement about matrices",
    ),
    # --- §2.2 ----------------------------------------------------------------------------------
    E(
        "§2.2",
        "Attention(Q, K, V) = softmax(QK^T / sqrt(d_k)) V",
        "Attention(Q, K, V) = softmax(QK^T / sqrt(d_k)) V",
        "exact",
        "with the softmax taken along each row (over the keys), as in Vaswani et al. 2017 and "
        "F.scaled_dot_product_attention",
        ("attention-backward", "multihead-split-merge"),
    ),
    E(
        "§2.2",
        "QK^T 这一步，用一句大白话说就是“Q 里的每个向量和 K 里的每个向量做点积”。",
        "In plain words, QK^T is 'every vector of Q dotted with every vector of K'.",
        "exact",
        "(QKᵀ)_ij = q_i·k_j, an L×L matrix of all query–key dot products",
        ("qkv-projection-shapes",),
    ),
    E(
        "§2.2",
        "点积的数学意义是两个向量在方向上有多一致：夹角越小，点积越大；夹角接近 90 度，点积趋近于零；夹角为钝角，点积为负。",
        "The dot product measures how far two vectors agree in direction: the smaller the angle, the larger the dot product; "
        "near 90 degrees it tends to zero; for an obtuse angle it is negative.",
        "imprecise",
        "a·b = ‖a‖‖b‖cos θ: the sign follows the angle, but 'smaller angle, larger dot product' needs fixed "
        "norms; direction alone is the cosine a·b/(‖a‖‖b‖)",
        ("dot-product-cosine",),
    ),
    E(
        "§2.2",
        "也就是说，点积衡量的是“这个位置的 query 和那个位置的 key 有多匹配”。",
        "That is, the dot product measures how well the query at this position matches the key at that one.",
        "holds-with-conditions",
        "as the model's score, yes; but it is unnormalised: it grows with ‖q‖‖k‖, so a long key "
        "can outscore a better-aligned short one",
        ("dot-product-cosine",),
    ),
    E(
        "§2.2",
        "这个分数越高，说明当前词越应该注意到那个词。",
        "The higher this score, the more the current word should attend to that word.",
        "exact",
        "within one query's row softmax is strictly increasing in each score: s_b/s_a = e^{z_b − z_a} > 1 "
        "exactly when z_b > z_a",
        ("softmax-weight-ratio",),
    ),
    E(
        "§2.2",
        "为什么要除以 sqrt(d_k)？这是新手最容易忽略的问题。当向量维度 d_k 比较大时，点积的结果会随着维度增大而变得非常大。",
        "Why divide by sqrt(d_k)? Beginners overlook it most. When d_k is large, the dot products become very large as the "
        "dimension grows.",
        "holds-with-conditions",
        "for independent zero-mean unit-variance components the dot product has mean 0 and "
        "variance d_k: its typical size grows like √d_k, it is not large on average",
        ("qk-variance", "scaling-prevents-saturation"),
    ),
    E(
        "§2.2",
        "多个大的数值同时进入 softmax，会直接把 softmax 推向极端：最大的那个数概率接近 1，其他数概率接近 0，梯度几乎消失。",
        "Several large values entering softmax push it to the extreme: the largest gets probability close to 1, the others "
        "close to 0, and the gradient almost vanishes.",
        "imprecise",
        "softmax(z + c) = softmax(z): large values that are equal give the uniform distribution; what "
        "saturates softmax is a large spread (gap) between the values, which does grow like √d_k",
        ("softmax-weight-ratio", "scaling-prevents-saturation"),
    ),
    E(
        "§2.2",
        "除以 sqrt(d_k) 本质上是“标准化”，把点积的方差拉回到一个稳定区间，让 softmax 的输入不会因为维度增大而失控。",
        "Dividing by sqrt(d_k) is in essence 'standardisation': it pulls the variance of the dot product back into a stable "
        "range so that softmax's input does not run away as the dimension grows.",
        "holds-with-conditions",
        "a fixed rescaling, not a data-dependent standardisation: it gives variance exactly 1 "
        "only under qk-variance's independence model",
        ("qk-variance",),
    ),
    E(
        "§2.2",
        "关于 d_k 是什么，可以做一个简化计算：如果 Q 里的每个分量都是均值为 0、方差为 1 的随机变量，那么两个 d_k 维向量的点积方差就是 d_k。"
        "除以 sqrt(d_k) 后方差就回到 1。",
        "A simplified calculation: if every component of Q is a random variable of mean 0 and variance 1, the dot product "
        "of two d_k-dimensional vectors has variance d_k; divided by sqrt(d_k) the variance returns to 1.",
        "holds-with-conditions",
        "needs K's components too to have mean 0 and variance 1, and q, k and their components "
        "independent; with means μ the variance is d_k(σ_q²σ_k² + μ_q²σ_k² + μ_k²σ_q²)",
        ("qk-variance",),
    ),
    E(
        "§2.2",
        "这就是为什么“除以根号 d_k”不是拍脑袋，而是有概率论依据的。",
        "This is why 'divide by √d_k' is not arbitrary but grounded in probability.",
        "holds-with-conditions",
        "the grounding is the variance calculation above, under its independence model "
        "(Vaswani et al. 2017, footnote 4); trained q and k are not independent",
        ("qk-variance",),
    ),
    # --- §2.3 ----------------------------------------------------------------------------------
    E(
        "§2.3",
        "线性代数不需要你学会手算 4x4 矩阵的逆，也不需要用代数余子式推导一遍矩阵乘法公式。",
        "You need not invert a 4x4 matrix by hand, nor derive the matrix-product formula with cofactors.",
        "not-mathematics",
        "study advice (cofactors give inverses and determinants, not the product formula)",
    ),
    E(
        "§2.3",
        "看到矩阵乘法，能立刻说出输出形状。",
        "Seeing a matrix product, say its output shape at once.",
        "not-mathematics",
        "a skill to learn; the shape rule (L×D)(D×d) = L×d is checked in qkv-projection-shapes",
        ("qkv-projection-shapes",),
    ),
    E(
        "§2.3",
        "理解点积代表相似度，能解释清楚注意力分数为什么是内积。",
        "Understand that the dot product stands for similarity, and explain why attention scores are inner products.",
        "holds-with-conditions",
        "an unnormalised similarity: the cosine is the normalised one (see §2.2)",
        ("dot-product-cosine",),
    ),
    E(
        "§2.3",
        "看到权重矩阵的维度，能反推出输入输出的向量长度。",
        "From a weight matrix's dimensions, infer the input and output vector lengths.",
        "holds-with-conditions",
        "in the seed's layout x @ W, W is (in, out); torch.nn.Linear stores its weight as (out, in) and computes x Wᵀ",
        ("qkv-projection-shapes",),
    ),
    E(
        "§2.3",
        "这些能力完全可以通过“小矩阵手算 + 大矩阵用代码验证”来练。",
        "These skills can be trained by 'small matrices by hand + large matrices checked in code'.",
        "not-mathematics",
        "study advice",
    ),
    E(
        "§2.3",
        "我常建议朋友拿一个 2x2 矩阵手动算一遍 QK^T，再打印出 PyTorch 里的实际结果对比。",
        "I often suggest computing QK^T for a 2x2 matrix by hand and comparing with PyTorch's result.",
        "not-mathematics",
        "an exercise",
    ),
    E(
        "§2.3",
        "PyTorch 里的 matmul 规则已经帮你处理好了批量乘法，你只需要心里清楚“每个 batch、每个 head、每个位置的向量怎么对应”。",
        "PyTorch's matmul rules already handle the batched products; you only need to know which vectors of each batch, "
        "head and position correspond.",
        "exact",
        "torch.matmul multiplies the last two dimensions and broadcasts the leading ones: (B, H, L, d) @ "
        "(B, H, d, L) is (B, H, L, L)",
        ("multihead-split-merge",),
    ),
    # --- §3.1 ----------------------------------------------------------------------------------
    E(
        "§3.1",
        "注意力分数的原始值可以是任意实数，有正有负，有大有小。",
        "The raw attention scores can be any real numbers, positive or negative, large or small.",
        "exact",
        "q·k/√d_k ranges over all of R",
        ("softmax-simplex",),
    ),
    E(
        "§3.1",
        "但注意力权重应该是一个概率分布：每个元素都在 0 到 1 之间，所有元素加起来等于 1。这个转换就是 softmax 的职责。",
        "But attention weights should be a probability distribution: every element between 0 and 1, all adding up to 1. "
        "This conversion is softmax's job.",
        "holds-with-conditions",
        "s_i ∈ (0, 1) needs n ≥ 2 (n = 1 gives s = 1) and exact arithmetic: in float64 "
        "softmax([0, −1000]) is exactly [1, 0]",
        ("softmax-simplex",),
    ),
    E(
        "§3.1",
        "softmax 先对每个分数取指数 e^x，然后做归一化：……softmax(z)_i = e^{z_i} / Σ_j e^{z_j}",
        "softmax first takes the exponential e^x of every score, then normalises: softmax(z)_i = e^{z_i} / Σ_j e^{z_j}",
        "exact",
        "the definition, as torch.softmax computes it (up to its max shift, which changes nothing)",
        ("softmax-simplex",),
    ),
    E(
        "§3.1",
        "为什么要加指数这一步，而不是直接用原始分数做归一化？我理解有两个原因。第一，指数函数能把任何实数映射到正数，规避负分数导致的不合理概率。",
        "Why the exponential, rather than normalising the raw scores? Two reasons. First, the exponential maps any real "
        "number to a positive one, avoiding the unreasonable probabilities negative scores would give.",
        "exact",
        "e^x > 0 for every real x; z_i/Σ_j z_j is negative for some scores and undefined when they sum to 0",
        ("softmax-simplex",),
    ),
    E(
        "§3.1",
        "第二，指数运算能放大差异：原本 2 和 3 只差 1，但 e^3 是 e^2 的约 2.72 倍，模型对“更匹配”的位置更敏感。",
        "Second, the exponential amplifies differences: 2 and 3 differ by only 1, but e^3 is about 2.72 times e^2, so the "
        "model is more sensitive to the better-matching position.",
        "imprecise",
        "e³/e² = e ≈ 2.718 is right, but the weight ratio e^{b−a} depends on the gap alone, so it amplifies "
        "only against gaps that are large enough: for scores 0.1 and 0.2 linear normalisation gives the "
        "ratio 2 and softmax e^{0.1} ≈ 1.105",
        ("softmax-weight-ratio",),
    ),
    E(
        "§3.1",
        "把指数这一步换成线性归一化也不是不行，但那样模型对细微差异的区分能力会弱很多。",
        "Replacing the exponential by linear normalisation is not impossible, but the model would distinguish small "
        "differences much less well.",
        "imprecise",
        "linear normalisation z_i/Σz fails for negative scores or a zero sum; and it is not uniformly weaker: "
        "its ratio b/a exceeds softmax's e^{b−a} for small positive scores (0.1 vs 0.2: 2 against 1.105)",
        ("softmax-weight-ratio",),
    ),
    E(
        "§3.1",
        "指数函数让注意力变成“赢家通吃”但又不完全极端，这个平衡点恰恰是训练稳定的关键。",
        "The exponential makes attention 'winner takes all' but not completely extreme; this balance is exactly the key to "
        "stable training.",
        "not-mathematics",
        "an impression: how peaked softmax is depends on the logits' gaps (and the temperature); "
        "'the key to stability' is an empirical claim",
        ("temperature-sharpness",),
    ),
    # --- §3.2 ----------------------------------------------------------------------------------
    E(
        "§3.2",
        "给定之前所有词，模型输出一个词表大小的概率分布，然后从里面挑概率最高的词。",
        "Given all previous words, the model outputs a probability distribution of vocabulary size and picks the most "
        "probable word from it.",
        "holds-with-conditions",
        "picking the most probable word is greedy decoding; §3.3 samples instead",
        ("softmax-simplex",),
    ),
    E(
        "§3.2",
        "这个任务在数学上是一个分类问题，训练目标就来自最大似然估计。",
        "Mathematically the task is a classification problem; the training objective comes from maximum likelihood.",
        "exact",
        "next-token prediction is |V|-way classification; its negative log-likelihood is the cross-entropy",
        ("mle-equals-cross-entropy",),
    ),
    E(
        "§3.2",
        "最大似然的核心思想是：我们要找一组参数，使得训练语料里真实出现的下一个词，被模型分配到的概率尽可能高。",
        "The core idea of maximum likelihood: find parameters under which the words that really come next in the corpus "
        "get as high a probability as possible.",
        "holds-with-conditions",
        "as high as possible jointly — the product Π_t p(w_t), i.e. the sum of log-"
        "probabilities — not each word separately",
        ("mle-equals-cross-entropy",),
    ),
    E(
        "§3.2",
        "对单个样本，如果真实词是 w，模型预测它的概率是 p(w)，我们希望最大化 p(w)。取 log 后变成最大化 log p(w)，再取负，变成最小化 -log p(w)。",
        "For one sample whose true word is w, predicted with probability p(w), we maximise p(w); taking the log we maximise "
        "log p(w), negating we minimise −log p(w).",
        "exact",
        "log is strictly increasing, so argmax p = argmax log p = argmin −log p (for p > 0)",
        ("mle-equals-cross-entropy",),
    ),
    E(
        "§3.2",
        "这个 -log p(w) 就叫交叉熵损失。",
        "This −log p(w) is called the cross-entropy loss.",
        "exact",
        "the cross-entropy against a one-hot target; its gradient in the logits is softmax(z) − onehot(w)",
        ("cross-entropy-softmax-gradient",),
    ),
    E(
        "§3.2",
        "它和信息论里的“消息编码长度”有密切关系：真实词越不被模型预期，损失越大。",
        "It is closely related to 'message code length' in information theory: the less the model expects the true word, "
        "the larger the loss.",
        "exact",
        "−log₂ p is the ideal code length in bits, and −log p is strictly decreasing in p",
        ("information-content",),
    ),
    E(
        "§3.2",
        "我一个很深的体会是，只要把“最小化交叉熵”理解成“让模型给真实词更高的概率”，Transformer 训练的大部分行为都能解释得通。",
        "My deep lesson: read 'minimise the cross-entropy' as 'give the true word a higher probability' and most of "
        "training makes sense.",
        "holds-with-conditions",
        "with one-hot targets, yes; through the softmax raising p(w) lowers the others: the "
        "gradient softmax(z) − onehot(w) pushes every other logit down",
        ("cross-entropy-softmax-gradient",),
    ),
    # --- §3.3 ----------------------------------------------------------------------------------
    E(
        "§3.3",
        "训练完模型后做文本生成，每次从概率分布里选词，直接选 argmax 会让输出非常机械，总是走同一套路。",
        "Generating text after training, picking the argmax from the distribution each time makes the output mechanical, "
        "always the same path.",
        "exact",
        "argmax decoding is deterministic: the same prefix always gives the same continuation",
        ("temperature-sharpness",),
    ),
    E(
        "§3.3",
        "temperature 的操作很简单，把 softmax 输入除以一个温度 T：……p_i = exp(z_i / T) / Σ_j exp(z_j / T)",
        "Temperature is simple: divide softmax's input by a temperature T: p_i = exp(z_i / T) / Σ_j exp(z_j / T)",
        "exact",
        "the definition, for T > 0",
        ("temperature-sharpness",),
    ),
    E(
        "§3.3",
        "当 T 小于 1 时，分数被放大，softmax 输出更尖锐，高概率词更突出，输出更稳定。当 T 大于 1 时，分数被压缩，概率分布更平滑，随机性更强。",
        "Below T = 1 the scores are magnified and the output is sharper; above 1 they are compressed and the distribution "
        "is smoother, more random.",
        "holds-with-conditions",
        "entropy rises with T (dH/dT = Var_p(z)/T³) unless all logits are equal; 'sharper' and "
        "'smoother' are relative to T = 1, not absolute",
        ("temperature-sharpness",),
    ),
    E(
        "§3.3",
        "我调生成参数的经验是：T=0.7 到 0.9 适合大多数通用文本，T=0.1 适合代码或数学题，T=1.2 以上容易产生幻觉。",
        "My experience: T = 0.7 to 0.9 suits most general text, T = 0.1 code or maths, above T = 1.2 hallucinations come easily.",
        "not-mathematics",
        "engineering advice; not checked",
    ),
    E(
        "§3.3",
        "这些看起来是工程经验，背后全是概率分布的形态调整。你一旦理解 softmax 输出的“尖锐程度”受温度控制，调参就不再是玄学。",
        "These look like engineering lore, but behind them is the shaping of the distribution; once you see that the "
        "sharpness of softmax's output is controlled by the temperature, tuning is no longer a mystery.",
        "holds-with-conditions",
        "T does control the sharpness (entropy strictly increasing in T for unequal logits); "
        "which T suits which text is empirical",
        ("temperature-sharpness",),
    ),
    # --- §4.1 ----------------------------------------------------------------------------------
    E(
        "§4.1",
        "反向传播的数学支柱是微积分里的链式法则。",
        "The mathematical pillar of backpropagation is the chain rule of calculus.",
        "exact",
        "backpropagation is the chain rule applied in reverse order over the computation graph",
        ("chain-rule-linear-layer", "attention-backward"),
    ),
    E(
        "§4.1",
        "假设损失是 L，模型某一层的输出是 y，y 由权重 W 算出来，链式法则告诉我们：……dL/dW = (dL/dy) * (dy/dW)",
        "Suppose the loss is L, a layer's output is y, computed from the weights W; the chain rule tells us: "
        "dL/dW = (dL/dy) * (dy/dW)",
        "imprecise",
        "for matrices the product has an order and a transpose: ∂L/∂W = Xᵀ(∂L/∂y); '(dL/dy)·(dy/dW)' is a "
        "contraction over y's entries, not a matrix product",
        ("chain-rule-linear-layer",),
    ),
    E(
        "§4.1",
        "这个式子看着简单，但放到 Transformer 里会演变成一个很长很长的链：损失对 logits 求导，logits 对注意力输出求导，注意力输出对 value 求导，"
        "value 对线性层求导，一路倒推回 embedding。",
        "The formula looks simple, but in a Transformer it becomes a very long chain: loss to logits, logits to attention "
        "output, attention output to values, values to the linear layer, all the way back to the embeddings.",
        "holds-with-conditions",
        "a graph rather than a chain: Q, K, V all come from X and residual connections add "
        "paths, so ∂L/∂X sums over paths; each link is exact",
        ("softmax-jacobian", "attention-backward", "residual-gradient-path"),
    ),
    E(
        "§4.1",
        "很多人在这一步被劝退，是因为盯着代码里的backward()想不通它怎么知道梯度。",
        "Many give up here, staring at backward() and not seeing how it knows the gradient.",
        "not-mathematics",
        "an anecdote (backward() applies the chain rule in reverse over the recorded graph)",
    ),
    E(
        "§4.1",
        "实际上你不需要手动实现反向传播，只要你理解“链式求导”这件事，并且知道梯度是“误差对参数的敏感程度”，就足以指导你做各种调试。",
        "You need not implement backpropagation; understand the chain rule and that the gradient is 'the sensitivity of "
        "the error to the parameters', and that guides all kinds of debugging.",
        "holds-with-conditions",
        "to first order: L(W + Δ) = L(W) + ⟨∇L, Δ⟩ + o(‖Δ‖), with 'error' meaning the loss",
        ("gradient-descent-decrease",),
    ),
    E(
        "§4.1",
        "比如你观察到某个中间层梯度特别大或特别小，你能下意识想到这是“这条链上某一段的导数衰减或爆炸了”，而不是盯着 loss 曲线干着急。",
        "If a middle layer's gradient is very large or small, you think 'some link's derivative decayed or exploded' instead "
        "of staring at the loss curve.",
        "holds-with-conditions",
        "the gradient is a product of Jacobians, so one link with a small or large gain scales "
        "everything below it; residual paths bypass such a link",
        ("residual-gradient-path",),
    ),
    # --- §4.2 ----------------------------------------------------------------------------------
    E(
        "§4.2",
        "有了梯度，参数更新本身是另一门数学分支——最优化。",
        "With the gradient, updating the parameters is another branch of mathematics: optimisation.",
        "not-mathematics",
        "names a branch",
    ),
    E(
        "§4.2",
        "最朴素的方法是梯度下降：……W = W - lr * dL/dW",
        "The plainest method is gradient descent: W = W - lr * dL/dW",
        "exact",
        "the update rule (an assignment, lr > 0), torch.optim.SGD without momentum",
        ("gradient-descent-decrease",),
    ),
    E(
        "§4.2",
        "这个式子把参数沿着梯度反方向挪一小步。",
        "This moves the parameters a small step against the gradient.",
        "holds-with-conditions",
        "the step has length lr·‖∇L‖, small only when that is; it lowers L for 0 < lr < 2/β when L is β-smooth",
        ("gradient-descent-decrease",),
    ),
    E(
        "§4.2",
        "问题在于，Transformer 里不同参数的梯度尺度差异巨大：有些权重你希望走得快一点，有些权重则容易走过头。",
        "The problem: gradient scales differ hugely between parameters; some weights should move faster, others overshoot.",
        "not-mathematics",
        "an empirical observation about training",
    ),
    E(
        "§4.2",
        "它不只用当前梯度，还维护了梯度的滑动平均，并且对每个参数做“自动归一化”：梯度大的参数步长被压小，梯度小的参数步长被放大。",
        "It uses a moving average of gradients and 'normalises automatically' per parameter: large gradients get smaller "
        "steps, small ones larger.",
        "holds-with-conditions",
        "Adam's step −lr·m̂/(√v̂ + ε) has magnitude ≈ lr whatever the gradient's scale, so small "
        "gradients get relatively larger steps only while √v̂ ≫ ε",
        ("adam-update",),
    ),
    E(
        "§4.2",
        "我最初完全看不懂 Adam 那套公式，后来从一个简单的角度理解了它：Adam 相当于给每个参数装了一个独立的“自适应步长控制器”，"
        "这也是为什么它成为 Transformer 训练的事实默认配置。",
        "I understood Adam from a simple angle: it gives every parameter its own adaptive step-size controller, which is "
        "why it became the de-facto default for training Transformers.",
        "holds-with-conditions",
        "per parameter, the step is lr·m̂/(√v̂ + ε): a step size scaled by that parameter's own "
        "gradient history; 'why it became the default' is history, not mathematics",
        ("adam-update",),
    ),
    E(
        "§4.2",
        "你需要掌握的数学程度，是能解释清楚“梯度是上升方向，所以减梯度是下降”和“为什么不同参数要用不同步长”这两个问题。",
        "You need to explain 'the gradient is the ascent direction, so subtracting it descends' and 'why different "
        "parameters need different step sizes'.",
        "holds-with-conditions",
        "−∇L descends to first order (slope −‖∇L‖²); a finite step descends for a small enough learning rate",
        ("gradient-descent-decrease",),
    ),
    E(
        "§4.2",
        "至于 Adam 公式里一阶动量和二阶动量参数怎么取值，直接用默认值就好，不需要每一步都手推。",
        "As for the values of the first- and second-order momentum parameters in Adam's formula, just use the defaults.",
        "imprecise",
        "β₁ and β₂ are the decay rates of Adam's moving averages of g and g² (first and second moment "
        "estimates; only the first is a momentum); PyTorch's defaults are β = (0.9, 0.999), ε = 1e-8",
        ("adam-update",),
    ),
    # --- §4.3 ----------------------------------------------------------------------------------
    E(
        "§4.3",
        "这在微积分视角下有一个很重要的原因：网络越深，链式法则乘积越长，梯度要么指数级变大，要么指数级衰减到零。",
        "From calculus there is an important reason: the deeper the network, the longer the chain-rule product, and the "
        "gradient either grows or decays to zero exponentially.",
        "holds-with-conditions",
        "a product of L factors of gain a behaves like a^L: it explodes for a > 1 and vanishes for "
        "a < 1, but gains near 1 (what initialisation aims at) do neither",
        ("residual-gradient-path",),
    ),
    E(
        "§4.3",
        "残差连接让梯度有一条“高速公路”可以直接流回浅层，LayerNorm 则把每一层的激活值拉回到均值为 0、方差为 1 的范围内，"
        "避免数值分布在层层传递中越漂越离谱。",
        "Residual connections give the gradient a highway back to shallow layers; LayerNorm pulls activations back to mean "
        "0 and variance 1.",
        "holds-with-conditions",
        "the identity path survives every depth; LayerNorm gives mean 0 exactly but variance "
        "σ²/(σ² + ε) < 1, and with its affine part the output has mean β and scale γ",
        ("residual-gradient-path", "layernorm-statistics"),
    ),
    E(
        "§4.3",
        "这两个设计都是为了让梯度在长链条里能够平稳传递。",
        "Both designs let the gradient pass smoothly along the long chain.",
        "holds-with-conditions",
        "true of the residual path (∂x_L/∂x_0 contains I); LayerNorm normalises activations and "
        "acts on gradients only through its Jacobian",
        ("residual-gradient-path",),
    ),
    E(
        "§4.3",
        "“梯度消失”在双曲正切激活函数时代是家常便饭，Transformer 用 ReLU 加 LayerNorm 加残差，本质上是用数学手段对抗多层复合带来的数值不稳定。",
        "Vanishing gradients were common in the tanh era; the Transformer uses ReLU + LayerNorm + residuals to fight the "
        "instability of deep composition.",
        "holds-with-conditions",
        "tanh′ = 1 − tanh² ≤ 1, with tanh′ → 0 as |x| grows, so chains of saturated tanh units "
        "shrink gradients; the original Transformer's FFN uses ReLU (later ones GELU or SwiGLU)",
        ("residual-gradient-path",),
        ("diff(tanh(x), x)", "1 - tanh(x)**2", "proved"),
    ),
    # --- §5.1 ----------------------------------------------------------------------------------
    E(
        "§5.1",
        "信息论告诉你：一个词携带的信息量，和它出现的概率成反比。",
        "Information theory tells you: the information a word carries is inversely proportional to its probability.",
        "wrong",
        "inversely proportional would be c/p, which is c ≠ 0 at p = 1; the information is −log p = log(1/p): "
        "decreasing in p but logarithmic (the seed's own next sentences use −log p; information-content's "
        "mutant 'inverse-proportional' is refuted, and that claim judges its whole passage imprecise)",
        ("information-content",),
        ("-log(p)", "1/p", "refuted", "p=positive"),
    ),
    E(
        "§5.1",
        "概率为 1 的词（一定会出现）携带信息量是 0，完全确定，没有任何信息；概率极低的词一旦出现，意外感强，信息量就大。",
        "A word of probability 1 carries zero information; a very unlikely word, when it appears, is surprising and "
        "carries much information.",
        "exact",
        "−log 1 = 0 and −log p → ∞ as p → 0⁺",
        ("information-content",),
    ),
    E(
        "§5.1",
        "量化下来就是：……信息量 = -log p(x)",
        "Quantified: information = −log p(x)",
        "exact",
        "Shannon's self-information (in nats with ln, in bits with log₂)",
        ("information-content",),
    ),
    E(
        "§5.1",
        "把所有可能事件的概率做加权平均，就是熵：……H(p) = -Σ p(x) log p(x)",
        "A weighted average over the probabilities of all possible events is the entropy: H(p) = −Σ p(x) log p(x)",
        "imprecise",
        "the formula is right, the words are loose: what is averaged is the information −log p(x), weighted by "
        "p(x); the weighted average of the probabilities themselves, Σ p(x)², is another quantity",
        ("entropy-bounds",),
        ("-(p*log(p) + (1 - p)*log(1 - p))", "p**2 + (1 - p)**2", "refuted", "p=positive"),
    ),
    E(
        "§5.1",
        "熵衡量的是一个概率分布内部的不确定性。",
        "Entropy measures the uncertainty within a probability distribution.",
        "exact",
        "the standard reading: H ≥ 0, zero only for a certain outcome, largest for the uniform distribution",
        ("entropy-bounds",),
    ),
    E(
        "§5.1",
        "一个均匀分布熵最大，因为它“说不准下一个到底是谁”；一个集中分布熵最小，因为结果几乎确定。",
        "A uniform distribution has the largest entropy; a concentrated one the smallest.",
        "holds-with-conditions",
        "among distributions on the same n outcomes: H ≤ log n, equal only at the uniform one; "
        "H ≥ 0, equal only at a one-hot one",
        ("entropy-bounds",),
    ),
    E(
        "§5.1",
        "理解熵之后，模型输出的“困惑度”就能看穿了：模型困惑度低，说明它输出的概率分布很集中，选择很确定；模型困惑度高，说明它到处犹豫，分布平滑。",
        "With entropy, perplexity is transparent: low perplexity means the output distribution is concentrated and the "
        "choice certain; high perplexity means it hesitates everywhere, the distribution is flat.",
        "imprecise",
        "perplexity is exp of the cross-entropy against the true next tokens, not of the output's own "
        "entropy: a confident model that is wrong (concentrated q) has high perplexity, above V",
        ("perplexity-exp-cross-entropy",),
    ),
    # --- §5.2 ----------------------------------------------------------------------------------
    E(
        "§5.2",
        "训练语言模型时，我们经常把“交叉熵损失”和“KL 散度”混着提。",
        "Training language models, we often mention the cross-entropy loss and the KL divergence interchangeably.",
        "not-mathematics",
        "a remark on usage (the relation is the next sentence)",
    ),
    E(
        "§5.2",
        "它们的关系非常简洁：交叉熵等于真实分布的熵加上真实分布到预测分布的 KL 散度。……H(p, q) = H(p) + D_KL(p || q)",
        "Their relation is simple: the cross-entropy is the entropy of the true distribution plus the KL divergence from "
        "the true to the predicted distribution: H(p, q) = H(p) + D_KL(p || q)",
        "exact",
        "holds for all distributions p, q with q > 0 where p > 0",
        ("cross-entropy-decomposition",),
    ),
    E(
        "§5.2",
        "H(p) 是真实分布固有的、跟模型无关的常数。",
        "H(p) is intrinsic to the true distribution, a constant independent of the model.",
        "exact",
        "H(p) does not depend on q",
        ("cross-entropy-decomposition",),
    ),
    E(
        "§5.2",
        "因此，最小化交叉熵，等价于最小化 KL 散度，等价于让模型输出分布尽可能逼近真实分布。",
        "Hence minimising the cross-entropy is equivalent to minimising the KL divergence, equivalent to bringing the "
        "model's distribution as close as possible to the true one.",
        "holds-with-conditions",
        "p and q normalised, q > 0 wherever p > 0: KL(p‖q) ≥ 0 with equality iff q = p",
        ("gibbs-inequality",),
    ),
    E(
        "§5.2",
        "语言模型在做的所有事，本质上都是让 q 去拟合 p。",
        "Everything a language model does is, in essence, fitting q to p.",
        "holds-with-conditions",
        "as far as its training objective goes: minimising H(p, q) over q has its minimum exactly "
        "at q = p (for normalised q with q > 0 where p > 0)",
        ("gibbs-inequality",),
    ),
    E(
        "§5.2",
        "只要明确“我期望的理想输出分布是什么样”，再用交叉熵或 KL 散度去衡量模型预测分布和理想分布的距离，损失函数就自然地长出来了。",
        "Once you know the ideal output distribution, measure the distance between it and the prediction with the "
        "cross-entropy or the KL divergence, and the loss grows naturally.",
        "imprecise",
        "neither is a distance: KL is asymmetric (kl-distillation's mutant 'symmetric' is refuted) and "
        "breaks the triangle inequality, and the cross-entropy is not zero at q = p (it is H(p))",
        ("kl-distillation", "cross-entropy-decomposition"),
    ),
    E(
        "§5.2",
        "这也解释了为什么机器翻译、文本分类、语音识别这些任务，最终都统一到交叉熵这个框架下。",
        "This also explains why machine translation, text classification and speech recognition all end up under the "
        "cross-entropy framework.",
        "not-mathematics",
        "a historical remark",
    ),
    # --- §5.3 ----------------------------------------------------------------------------------
    E(
        "§5.3",
        "KL 散度不只是训练语言模型时用。知识蒸馏就是一个典型场景：大模型（教师）和小模型（学生）同时处理一批数据，"
        "我们希望学生的输出分布不只在正确答案上和教师一致，还要在错误项的分布形态上尽量模仿教师。",
        "KL is not only for language models. Distillation is a typical case: the student should match the teacher not "
        "only on the right answer but in the shape of the distribution over the wrong ones.",
        "exact",
        "matching the whole softened distribution is what distillation's KL term does",
        ("kl-distillation",),
    ),
    E(
        "§5.3",
        "这个“分布形态对齐”的目标，用的就是 KL 散度：……L = KL(学生分布 || 教师分布)",
        "This 'distribution shape alignment' objective is the KL divergence: L = KL(student || teacher)",
        "imprecise",
        "KL is asymmetric and standard distillation (Hinton et al. 2015) minimises KL(teacher‖student), "
        "scaled by T²; KL(student‖teacher) is the reverse, mode-seeking objective",
        ("kl-distillation",),
    ),
    E(
        "§5.3",
        "当你想让两个模型“在某些维度上行为接近”时，KL 散度几乎是标准答案。",
        "When you want two models to behave alike 'in some dimensions', the KL divergence is almost the standard answer.",
        "not-mathematics",
        "a convention of practice ('dimensions' is figurative)",
    ),
    E(
        "§5.3",
        "甚至在偏好对齐阶段，模型输出的优化也是通过约束新策略和参考策略之间的 KL 散度来实现的，防止模型在训练中飘得太远。",
        "Even in preference alignment the optimisation constrains the KL divergence between the new policy and the "
        "reference one, so that the model does not drift too far.",
        "holds-with-conditions",
        "RLHF penalises β·KL(π_θ‖π_ref) (the policy first: the reverse of standard "
        "distillation's direction); not checked here",
    ),
    E(
        "§5.3",
        "我自己的学习建议是：把“交叉熵和 KL 散度只差一个常数”这句话背下来，然后去跑一次知识蒸馏的小实验，理解会非常快。",
        "My advice: memorise 'the cross-entropy and the KL divergence differ by a constant', then run a small distillation "
        "experiment.",
        "holds-with-conditions",
        "they differ by H(p), a constant only while the target p is fixed (one-hot: H(p) = 0, "
        "they are equal); a teacher's p changes with the input",
        ("cross-entropy-decomposition",),
    ),
    # --- §6.1 ----------------------------------------------------------------------------------
    E(
        "§6.1",
        "注意力机制对输入序列做的是“两两交互”：每个 token 的 query 和所有 token 的 key 做点积，再对所有 value 加权求和。",
        "Attention does 'pairwise interaction': each token's query is dotted with every token's key, then the values are "
        "summed with weights.",
        "exact",
        "without a mask: out_i = Σ_j softmax_j(q_i·k_j/√d) v_j",
        ("attention-permutation-equivariance",),
    ),
    E(
        "§6.1",
        "这个过程完全不关心 token 的先后顺序。把“我爱吃苹果”换成“苹果爱吃我”，如果不加位置信息，Transformer 算出来的表示一模一样。",
        "This process ignores token order entirely. Swap 'I love eating apples' for 'apples love eating me': without "
        "position information the Transformer computes exactly the same representation.",
        "imprecise",
        "permuting the tokens permutes the outputs the same way (Attn(PX) = P·Attn(X), equivariance); only "
        "a pooled representation is identical, and a causal mask already breaks the symmetry",
        ("attention-permutation-equivariance",),
    ),
    E(
        "§6.1",
        "组合数学里的“排列”概念在这里非常关键：一个序列的语义高度依赖于词的排列顺序，但注意力机制本身对排列是“不变”的。",
        "The combinatorial notion of permutation is key: a sequence's meaning depends on word order, but attention itself "
        "is 'invariant' to permutations.",
        "imprecise",
        "equivariant, not invariant: each token's output moves with its token (the mutant "
        "'invariant-per-token' is refuted)",
        ("attention-permutation-equivariance",),
    ),
    E(
        "§6.1",
        "为了打破这种排列不变性，必须显式地给每个位置注入位置信息。",
        "To break this permutation invariance, position information must be injected explicitly at every position.",
        "holds-with-conditions",
        "for unmasked (bidirectional) attention; a causal mask already makes the output depend on order",
        ("attention-permutation-equivariance", "causal-mask-autoregressive"),
    ),
    # --- §6.2 ----------------------------------------------------------------------------------
    E(
        "§6.2",
        "位置编码最经典的方案是三角函数的正余弦编码：……PE(pos, 2i) = sin(pos / 10000^(2i/d)) PE(pos, 2i+1) = cos(pos / 10000^(2i/d))",
        "The classic positional encoding is sinusoidal: PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = "
        "cos(pos / 10000^(2i/d))",
        "exact",
        "Vaswani et al. 2017, with d = d_model and i = 0, …, d/2 − 1",
        ("sinusoidal-relative-position",),
    ),
    E(
        "§6.2",
        "这里最精巧的地方在于三角恒等式。",
        "The most ingenious part is the trigonometric identity.",
        "not-mathematics",
        "appreciation; the identity is the next sentence",
    ),
    E(
        "§6.2",
        "sin(a+b) 可以写成 sin(a)cos(b) + cos(a)sin(b)，这意味着位置 pos+k 的编码，可以由位置 pos 的编码通过一个线性变换计算出来。",
        "sin(a+b) = sin(a)cos(b) + cos(a)sin(b), which means the encoding of position pos+k is a linear transformation of "
        "the encoding of position pos.",
        "exact",
        "per frequency pair a rotation by kω_i, the same matrix for every pos",
        ("sinusoidal-relative-position",),
    ),
    E(
        "§6.2",
        "也就是说，模型不需要额外学习，就能从 pos 的编码推算出“往前 k 个位置会是什么样”。",
        "That is, with no extra learning the model can work out from pos's encoding what k positions ahead looks like.",
        "holds-with-conditions",
        "the map exists and is fixed; whether a model uses it is a matter of its learned weights, not a theorem",
        ("sinusoidal-relative-position",),
    ),
    E(
        "§6.2",
        "这种“相对位置”信息被编码进了位置向量的线性结构中。",
        "This relative-position information is encoded into the linear structure of the position vectors.",
        "holds-with-conditions",
        "PE(pos)·PE(pos+k) depends on k alone, but the projected score (PE_m W_Q)·(PE_{m+k} W_K) "
        "does not for generic weights; rotary embeddings make the score relative exactly",
        ("sinusoidal-relative-position", "rope-relative-position"),
    ),
    E(
        "§6.2",
        "组合数学在这里的作用，是为如何“摆放”离散的位置提供结构化思路：每个位置都是一个 2i 维的坐标，维度越高，周期的取值范围越大，模型越能区分长远距离。",
        "Combinatorics structures how discrete positions are placed: each position is a 2i-dimensional coordinate; the "
        "higher the dimension, the wider the range of periods, and the better the model tells long distances apart.",
        "wrong",
        "each position is a d-dimensional vector; 2i only indexes its entries (mutant "
        "'position-is-2i-dimensional' refuted). The periods 2π·10000^{2i/d} run from 2π to 2π·10000^{1−2/d}: "
        "that range grows with d but never reaches 20000π, a larger d adds frequencies inside it",
        ("sinusoidal-wavelengths",),
    ),
    E(
        "§6.2",
        "从某种程度上说，正余弦位置编码就是一种把离散格子映射到连续坐标系的组合构造。",
        "In a sense the sinusoidal encoding is a combinatorial construction mapping a discrete grid to continuous "
        "coordinates.",
        "not-mathematics",
        "a metaphor: the encoding is a map pos ↦ (sin ω_i pos, cos ω_i pos)_i, a curve on a product of circles, "
        "not a combinatorial object",
        ("sinusoidal-wavelengths",),
    ),
    # --- §6.3 ----------------------------------------------------------------------------------
    E(
        "§6.3",
        "自注意力的时间复杂度是 O(n²d)，这个 n² 不是凭空来的。",
        "Self-attention's time complexity is O(n²d); the n² does not come from nowhere.",
        "holds-with-conditions",
        "QKᵀ and AV cost 4n²d FLOPs, but the projections add 8nd²: O(n²d + nd²), which is O(n²d) when n ≳ d",
        ("attention-complexity",),
    ),
    E(
        "§6.3",
        "序列里有 n 个 token，每个 token 的 query 要和所有 token 的 key 都算一次点积。",
        "With n tokens, each token's query is dotted once with every token's key.",
        "exact",
        "n queries × n keys, the query's own key included",
        ("attention-complexity",),
    ),
    E(
        "§6.3",
        "也就是说，一共要算 n 个 query 与 n 个 key 两两之间的大致 n² 个分数。",
        "That is, roughly n² scores between n queries and n keys.",
        "exact",
        "exactly n² scores (the 'roughly' is not needed)",
        ("attention-complexity",),
    ),
    E(
        "§6.3",
        "如果把两两配对写成组合数，就是 C(n, 2) 级别，约等于 n(n-1)/2，用大 O 表示就是 n²。",
        "Written as a combination count, the pairings are of order C(n, 2), about n(n-1)/2, which in big-O is n².",
        "imprecise",
        "attention scores n² ordered pairs, self-pairs included: n² = 2·C(n, 2) + n; C(n, 2) = n(n−1)/2 "
        "exactly (not 'about'); both are Θ(n²)",
        ("attention-complexity",),
    ),
    E(
        "§6.3",
        "它们的本质都是：不计算全部 n² 对交互，而是从 n² 对里挑出你认为重要的那部分来算。",
        "Their essence: compute not all n² interactions but a chosen important subset of them.",
        "exact",
        "a sparse pattern scores a subset of the n² (query, key) pairs",
        ("attention-complexity",),
    ),
    E(
        "§6.3",
        "比如某公司提出来的局部窗口注意力，就是只允许每个 token 与周围固定窗口内的 token 做注意力，交互从 n² 降到了 n×w，其中 w 是窗口大小。",
        "Local window attention lets each token attend only within a fixed window, cutting the interactions from n² to "
        "n×w, w the window size.",
        "holds-with-conditions",
        "at most n×w: a causal window keeps n·w − C(w, 2) pairs (the first rows are cut), a "
        "centred one n·w − r(r + 1); Θ(n·w) either way",
        ("attention-complexity",),
    ),
    E(
        "§6.3",
        "我建议你遇到注意力变体时，第一件事先算复杂度是 n²、n×w 还是介于两者之间，这能帮你快速判断它到底在做什么类型的取舍。",
        "Meeting an attention variant, first work out whether its complexity is n², n×w or in between.",
        "imprecise",
        "the list is not exhaustive: linear attention costs O(n·d²) with no n² or n×w term, and every variant "
        "keeps the projections' O(n·d²)",
        ("linear-attention-associativity", "attention-complexity"),
    ),
    # --- §7 ------------------------------------------------------------------------------------
    E(
        "§7.1",
        "数学公式和代码之间最直接的桥梁就是张量形状。",
        "The most direct bridge between formulas and code is the tensor shape.",
        "not-mathematics",
        "advice",
    ),
    E(
        "§7.1",
        "这里面最容易懵的是 Q/K/V 的形状变化。",
        "The most confusing part is how the shapes of Q/K/V change.",
        "not-mathematics",
        "a remark; the shapes are the next sentence",
    ),
    E(
        "§7.1",
        "X 是 (B, L, D)，乘以 W_Q 后按多头拆分，变成 (B, H, L, D_head)，D = H × D_head。",
        "X is (B, L, D); multiplied by W_Q and split into heads it becomes (B, H, L, D_head), D = H × D_head.",
        "holds-with-conditions",
        "needs H to divide D; the split is view(B, L, H, D_head) then transpose(1, 2), not a view to (B, H, L, D_head)",
        ("multihead-split-merge",),
    ),
    E(
        "§7.1",
        "也就是说，多头注意力不是先算完再复制一份，而是把 D 维空间切成 H 份，每个头分别在不同的子空间里做注意力，最后再拼回去。",
        "Multi-head attention does not compute once and copy: it cuts the D-dimensional space into H parts, each head "
        "attends in its own subspace, and the results are joined back.",
        "holds-with-conditions",
        "split and merge are inverse; each head scales by 1/√D_head, and the joined heads are mixed by W_O",
        ("multihead-split-merge",),
    ),
    E(
        "§7.2",
        "我推荐的对照法是：拿一个 B=2, L=4, D=8, H=2, D_head=4 的小例子，在 PyTorch 或 NumPy 里把每一步的 shape 打出来，和表格逐一对照。",
        "Take a small example B=2, L=4, D=8, H=2, D_head=4, print every step's shape in PyTorch or NumPy and compare with "
        "the table.",
        "exact",
        "the sizes are consistent: D = H × D_head = 2 × 4 = 8",
        ("multihead-split-merge",),
        ("2*4", "8", "proved"),
    ),
    E(
        "§7.2",
        "我读新论文时，最常用的技巧就是第一步先看那个模型结构图里各个张量的形状，如果作者没有给形状，我会直接按公式推一遍。",
        "Reading a new paper, I first look at the tensor shapes in the model diagram; if none are given, I derive them.",
        "not-mathematics",
        "a reading habit",
    ),
    E(
        "§7.2",
        "这套方法对 Transformer 变体尤其好用：Attention 无论怎么改，核心形状变化逃不出“B、H、L、D_head”这几个维度的排列组合。",
        "This works especially well for variants: however attention changes, its core shapes are arrangements of B, H, "
        "L, D_head.",
        "imprecise",
        "grouped-query attention adds a number G of key/value heads, a KV cache or cross-attention separate "
        "query and key lengths",
        ("grouped-query-attention", "kv-cache-equivalence"),
    ),
    E(
        "§7.2",
        "一个很容易踩的坑是，某些实现会在 softmax 前做 mask，把 padding 位置替换成负无穷。",
        "A common pitfall: some implementations mask before the softmax, replacing padding positions with negative infinity.",
        "holds-with-conditions",
        "the mask is added before the softmax; many implementations use a large finite negative "
        "number (torch.finfo(dtype).min) instead of −∞",
        ("mask-negative-infinity",),
    ),
    E(
        "§7.2",
        "你可能看不懂为什么是负无穷而不是零。答案是：零在指数运算后是 1，不会让概率变成 0，只有负无穷经过指数才是零，这样那些位置的注意力权重才会被完全清零。",
        "Why negative infinity and not zero? Zero becomes 1 after exponentiation and does not make the probability 0; only "
        "negative infinity becomes zero, so those positions' weights are cleared completely.",
        "holds-with-conditions",
        "e⁰ = 1 and e^{−∞} = 0; needs at least one unmasked position per row (a fully masked row is 0/0)",
        ("mask-negative-infinity",),
    ),
    E(
        "§7.2",
        "理解了指数函数的极限，这种写法就变得非常自然了。",
        "Once you understand the exponential's limit, this becomes natural.",
        "exact",
        "lim_{x→−∞} eˣ = 0, and IEEE exp(−inf) is exactly 0",
        ("mask-negative-infinity",),
    ),
    # --- §8 ------------------------------------------------------------------------------------
    E(
        "§8.1",
        "我早期一看“为什么 softmax 要取指数”，就去啃数学系教材里的凸函数证明，结果证明没啃懂，注意力机制也没学会。",
        "Early on, asking why softmax exponentiates, I chewed on convexity proofs and learned neither.",
        "not-mathematics",
        "an anecdote",
    ),
    E(
        "§8.1",
        "后来发现，对于工程师来说，先建立“指数函数能放大差异”这个感觉，远比看懂严格证明重要。",
        "For engineers, the intuition 'the exponential amplifies differences' matters far more than a rigorous proof.",
        "imprecise",
        "the intuition as worded is imprecise (see §3.1): softmax's weight ratio is e^{gap}, a function of "
        "the gap alone, and can be smaller than linear normalisation's",
        ("softmax-weight-ratio",),
    ),
    E(
        "§8.1",
        "第二个坑是只看公式不推形状。",
        "The second pitfall is reading formulas without working out shapes.",
        "not-mathematics",
        "advice",
    ),
    E(
        "§8.1",
        "我见过有人把注意力公式背得滚瓜烂熟，但让他写代码时却不知道 QK^T 输出是 (L, L) 还是 (D, D)。",
        "I have seen people who know the attention formula by heart but cannot say whether QK^T is (L, L) or (D, D).",
        "exact",
        "QKᵀ is L×L; QᵀK would be d_k×d_k",
        ("qkv-projection-shapes",),
    ),
    E(
        "§8.1",
        "这个问题的根源就是没有把公式和张量形状做强绑定。",
        "The root is not binding the formula to tensor shapes.",
        "not-mathematics",
        "advice",
    ),
    E(
        "§8.1",
        "公式里的点积发生在序列维度上，还是在向量维度上，直接决定了输出形状。",
        "Whether the formula's dot product runs over the sequence dimension or the vector dimension decides the output shape.",
        "exact",
        "contracting the feature dimension gives QKᵀ (L×L); contracting the sequence gives KᵀV (d×d), as linear "
        "attention does",
        ("qkv-projection-shapes", "linear-attention-associativity"),
    ),
    E(
        "§8.1",
        "建议你自己动手用一个小矩阵走一遍，再也不要凭空背公式。",
        "Work through a small matrix yourself rather than memorising formulas.",
        "not-mathematics",
        "advice",
    ),
    E(
        "§8.1",
        "很多人直接上手信息论和组合数学，结果发现连 softmax 的分布特性都没建立起来，看什么都像空中楼阁。",
        "Many start with information theory and combinatorics without softmax's distributional properties, and everything "
        "looks like castles in the air.",
        "not-mathematics",
        "advice",
    ),
    E(
        "§8.2",
        "死磕第 2 章到第 6 章，看完后动手打印所有中间张量的形状，把数学符号和代码建立强对应。",
        "Work through chapters 2 to 6, then print the shapes of all intermediate tensors.",
        "not-mathematics",
        "a study plan",
    ),
    E(
        "§8.2",
        "把交叉熵、反向传播、Adam 三个概念串起来，跑一个小型语言模型，观察 loss 随训练步数下降的曲线。",
        "Connect the cross-entropy, backpropagation and Adam; train a small language model and watch the loss fall with "
        "the training steps.",
        "not-mathematics",
        "an exercise (the loss is expected, not guaranteed, to fall: see §4.2)",
        ("gradient-descent-decrease",),
    ),
    E(
        "§8.2",
        "我给朋友推荐的小技巧是“给数学公式写翻译”。每读到一个公式，在旁边用一句话写“人话版”解读，比如“除以根号 d_k 是为了防止点积太大把 softmax 推成 one-hot”。",
        "Translate every formula into one plain sentence, e.g. 'dividing by √d_k keeps the dot products from pushing "
        "softmax to one-hot'.",
        "holds-with-conditions",
        "under qk-variance's independence model the unscaled logits spread like √d_k and saturate "
        "softmax; scaling removes the growth with d_k, not saturation in general",
        ("scaling-prevents-saturation",),
    ),
    E(
        "§8.2",
        "提示：学习组合数学的时候，不用专门去刷排列组合的竞赛题。你只需要懂排列组合的基本定义、复杂度分析和三角恒等式的基本操作。",
        "Tip: no need for competition problems in combinatorics; the basic definitions, complexity analysis and "
        "trigonometric identities suffice.",
        "not-mathematics",
        "study advice",
    ),
    E(
        "§8.2",
        "如果你按这份路线图走了一遍，回头看那些曾经让你头疼的论文公式，大概率会觉得：原来这些东西早就被这张地图标记过了。",
        "Once you have followed the map, the formulas that once gave you headaches will very likely look already charted.",
        "not-mathematics",
        "'大概率' (very likely) is a figure of speech, not a probability",
    ),
)


def _quote_key(section: str) -> tuple[int, int]:
    major, minor = section.lstrip("§").split(".")
    return int(major), int(minor)


def by_section() -> dict[str, list[Entry]]:
    """The entries grouped by section, in the seed's order (``{"§1.1": [...], ...}``)."""
    out: dict[str, list[Entry]] = {}
    for e in sorted(ENTRIES, key=lambda e: _quote_key(e.section)):  # stable: the table's order within a section
        out.setdefault(e.section, []).append(e)
    return out


def counts() -> dict[str, dict[str, int]]:
    """How many entries per section (``"§2"``) and verdict, plus ``"all"``: the table docs/claims.md shows."""
    out: dict[str, dict[str, int]] = {}
    for e in ENTRIES:
        for key in (e.section.split(".")[0], "all"):
            row = out.setdefault(key, dict.fromkeys(VERDICTS, 0))
            row[e.verdict] += 1
    return dict(sorted(out.items(), key=lambda kv: (kv[0] == "all", kv[0])))
