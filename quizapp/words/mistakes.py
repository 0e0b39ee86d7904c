"""Names of the grader's misconceptions (memory-model.md sections 9 and 16): mistake id -> (en, zh).

quizapp.memory.MISTAKES holds only the ids (memory returns codes); whoever shows a diagnosis renders
its label from here with `quizapp.words.say(mistake_id, lang)`.
"""

TEXT: dict[str, tuple[str, str]] = {
    "no-master": ("looks like the fp32 master copy was left out", "看起来漏算了 fp32 主权重（master weights）"),
    "no-gradients": ("looks like the gradients were left out", "看起来漏算了梯度"),
    "no-optimizer": ("looks like the optimizer states were left out", "看起来漏算了优化器状态"),
    "adam-16bit-states": ("looks like Adam's m and v were counted in 16-bit instead of fp32",
                          "看起来把 Adam 的 m 和 v 按 16 位计算了（应为 fp32）"),
    "zero-single-gpu": ("looks like ZeRO was assumed to shard on a single GPU (with N = 1 it saves nothing)",
                        "看起来以为 ZeRO 在单卡上也能切分（N = 1 时不省任何显存）"),
    "adam8bit-1byte": ("looks like 8-bit Adam was counted as 1 byte per parameter in all (m and v are 1 byte each)",
                       "看起来把 8-bit Adam 算成每参数共 1 字节（m 和 v 各 1 字节）"),
    "no-activations": ("looks like the activations were left out", "看起来漏算了激活值"),
    "bits-for-bytes": ("looks like bits and bytes were mixed up (a factor of 8)", "看起来混淆了比特和字节（差 8 倍）"),
    "gb-gib": ("looks like GB (10^9) and GiB (2^30) were mixed up", "看起来混淆了 GB（10^9）和 GiB（2^30）"),
    "kv-one-layer": ("looks like the KV cache was counted for one layer only, or for K only",
                     "看起来 KV cache 只算了一层，或只算了 K"),
    "no-kv": ("looks like the KV cache was left out", "看起来漏算了 KV cache"),
    "full-activations-with-recompute": (
        "looks like gradient checkpointing was ignored (activations without recomputation)",
        "看起来忽略了梯度检查点（按不重计算的激活值算了）"),
    # section 16
    "total-as-active": (
        "looks like total and active parameters were swapped (MoE: FLOPs use the active count, memory the total)",
        "看起来混淆了总参数和激活参数（MoE：算力按激活参数，显存按总参数）"),
    "kv-all-heads": ("looks like the KV cache was counted with every query head (GQA/MLA cache fewer)",
                     "看起来 KV cache 按全部 query 头计算了（GQA/MLA 缓存的更少）"),
    "decode-compute-bound": (
        "looks like decode time was taken from FLOPs; decode is bound by the bytes read",
        "看起来按 FLOPs 算了 decode 时间；decode 受读取的字节数（显存带宽）限制"),
    "allreduce-once": ("looks like an all-reduce was counted as sending M once; a ring sends 2·(n−1)/n·M",
                       "看起来把 all-reduce 算成只发送一次 M；ring 算法每卡发送 2·(n−1)/n·M"),
    "bubble-over-total": (
        "looks like the bubble was taken as a share of the whole step, (pp−1)/(m+pp−1), not of the ideal time, (pp−1)/m",
        "看起来把 bubble 算成占整个 step 的比例 (pp−1)/(m+pp−1)，而问的是占理想时间的比例 (pp−1)/m"),
    # sections 17-18
    "kv-no-window": ("looks like the sliding window was ignored (local layers cache at most W tokens)",
                     "看起来忽略了 sliding window（local 层最多只缓存 W 个 token）"),
    "attention-no-scores": (
        "looks like the S and P round trip through HBM was left out (standard attention writes and reads both N×N matrices)",
        "看起来漏算了 S 和 P 在 HBM 上的一写一读（标准 attention 要把两个 N×N 矩阵各写一次、读一次）"),
}
