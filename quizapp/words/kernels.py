"""Words of the kernel arithmetic and attention variants (memory-model.md sections 17-18): the notes of
quizapp.memory.kernels and formats.derive_kv_ratio, the rows of their worked solutions, and the
`quizapp calc --kernel` lines. key -> (en, zh); kernel, GEMM, HBM, FlashAttention stay English in Chinese.
"""

from __future__ import annotations

TEXT: dict[str, tuple[str, str]] = {
    # --- notes (quizapp.memory.kernels) ---------------------------------------------------------------
    "kernel.note.gemm_flops": ("({m} x {k}) @ ({k} x {n}): one multiply and one add per output element and inner index",
                               "({m} x {k}) @ ({k} x {n})：每个输出元素、每个内积下标一次乘一次加"),
    "kernel.note.gemv": ("; with m = {b} tokens this is a decode GEMV: the k·n weights dominate, I ≈ 2·b/p",
                         "；m = {b} 个 token 时就是 decode 的 GEMV：k·n 的权重占大头，I ≈ 2·b/p"),
    "kernel.note.gemm_bytes": ("{dtype} ({p} bytes): each operand read once, the output written once (the ideal a "
                               "tiled kernel approaches)",
                               "{dtype}（{p} 字节）：每个操作数读一次、输出写一次（tiling 良好的 kernel 逼近的理想值）"),
    "kernel.note.unfused": ("{ops} separate kernels: each reads its inputs from HBM and writes its outputs back",
                            "{ops} 个独立 kernel：每个都从 HBM 读输入、再把输出写回 HBM"),
    "kernel.note.fused": ("one fused kernel: {inputs} distinct inputs read once, {outputs} final outputs written once",
                          "融合成一个 kernel：{inputs} 个不同的输入各读一次，{outputs} 个最终输出各写一次"),
    "kernel.note.fusion_saving": ("the HBM traffic fusion saves (FLOPs ignored: memory-bound at any size)",
                                  "融合省下的 HBM 流量倍数（不计 FLOPs：任何规模都是 memory-bound）"),
    "kernel.note.ew_bytes_fused": ("the fused kernel's bytes", "融合后 kernel 的字节数"),
    "kernel.note.ew_bytes_unfused": ("the unfused chain's bytes", "未融合时整条链的字节数"),
    "kernel.note.ew_flops": ("elementwise FLOPs are ignored: these kernels are memory-bound on every preset",
                             "elementwise 的 FLOPs 忽略不计：在所有预设 GPU 上都是 memory-bound"),
    "kernel.note.attn_flops": ("per head and sequence, forward: QKᵀ and PV, 2·N²·d each (no causal halving)",
                               "每个 head、每条序列的前向：QKᵀ 和 PV 各 2·N²·d（不按 causal 减半）"),
    "kernel.note.attn_flops_causal": ("per head and sequence, forward: QKᵀ and PV, halved by the causal mask",
                                      "每个 head、每条序列的前向：QKᵀ 和 PV，按 causal mask 减半"),
    "kernel.note.attn_bytes_standard": ("standard attention in {dtype}: Q, K, V read and O written (4·N·d); the N×N "
                                        "scores S written and read, the probabilities P written and read (4·N²)",
                                        "标准 attention，{dtype}：读 Q、K、V，写 O（4·N·d）；N×N 的 S 写一次读一次，"
                                        "P 写一次读一次（4·N²）"),
    "kernel.note.attn_bytes_flash": ("FlashAttention-2 in {dtype}: Q read once, O written once, K and V read once per "
                                     "query block of B_r = {b} rows; S and P stay in SRAM; + the fp32 log-sum-exp 4·N",
                                     "FlashAttention-2，{dtype}：Q 读一次、O 写一次，每个 B_r = {b} 行的 query block "
                                     "读一遍 K 和 V；S 和 P 留在 SRAM；另加 fp32 的 log-sum-exp 4·N"),
    "kernel.note.attn_dao": ("; Dao et al. 2022 (FlashAttention): tiling keeps the N×N matrices out of HBM",
                             "；Dao et al. 2022（FlashAttention）：tiling 让 N×N 矩阵不落 HBM"),
    "kernel.note.attn_naive": ("S and P not counted (the mistake of leaving out their HBM round trip)",
                               "没算 S 和 P（漏掉它们在 HBM 上的往返）"),
    "kernel.note.intensity": ("arithmetic intensity: FLOPs per byte moved to or from HBM",
                              "算术强度：每搬运 1 字节 HBM 数据做多少 FLOPs"),
    "kernel.note.ridge": ("{gpu} at {dtype}: below this intensity a kernel is memory-bound, above it compute-bound",
                          "{gpu}，{dtype}：强度低于它就是 memory-bound，高于它就是 compute-bound"),
    "kernel.note.time": ("a lower bound, {bound}: compute {compute} s vs memory {memory} s",
                         "下界，{bound}：计算 {compute} s，访存 {memory} s"),
    "kernel.note.bound_compute": ("compute-bound", "compute-bound（算力受限）"),
    "kernel.note.bound_memory": ("memory-bound", "memory-bound（带宽受限）"),
    "kernel.note.roofline": ("roofline (spec section 17): time = max(FLOPs / peak, bytes / bandwidth), a lower bound; "
                             "real kernels reach 70-90 % of either",
                             "roofline（规范第 17 节）：time = max(FLOPs / peak, bytes / bandwidth)，是下界；"
                             "实际 kernel 能达到两者的 70-90 %"),
    "kernel.note.dao_backward": ("FlashAttention (Dao et al. 2022) does more FLOPs in the backward (it recomputes S "
                                 "and P from Q, K and the log-sum-exp) and moves far fewer bytes",
                                 "FlashAttention（Dao et al. 2022）在 backward 里做更多 FLOPs（用 Q、K 和 log-sum-exp "
                                 "重算 S 和 P），但搬运的字节少得多"),
    # --- kv_ratio and windows (formats.derive_kv_ratio, breakdown's KV term) --------------------------
    "kernel.note.kv_mha": ("one sequence, the MHA baseline: every query head keeps its K and V, every layer global",
                           "一条序列，MHA 基线：每个 query 头都存自己的 K 和 V，所有层都是 global"),
    "kernel.note.kv_model": ("one sequence, the model: a_kv = {akv} of a = {a} heads",
                             "一条序列，本模型：a = {a} 个头中 a_kv = {akv}"),
    "kernel.note.kv_window": ("; sliding window W = {w} on {local} local layers, the whole context on {glob} global",
                              "；{local} 个 local 层用 sliding window W = {w}，{glob} 个 global 层看完整上下文"),
    "kernel.note.kv_ratio": ("how many times smaller the cache is than MHA's at this context",
                             "在这个上下文长度下，cache 比 MHA 小多少倍"),
    "kernel.note.kv_ratio_dtype": ("both caches in the same element type: bytes per element cancel",
                                   "两个 cache 用同一种元素类型：每元素字节数约掉"),
    # --- rows of worked solutions ----------------------------------------------------------------------
    "solution.row.kernel_flops": ("kernel FLOPs", "kernel FLOPs"),
    "solution.row.kernel_bytes": ("HBM bytes", "HBM 字节数"),
    "solution.row.unfused_bytes": ("unfused bytes", "未融合字节数"),
    "solution.row.fused_bytes": ("fused bytes", "融合后字节数"),
    "solution.row.intensity": ("arithmetic intensity", "算术强度"),
    "solution.row.ridge": ("ridge point", "ridge point（拐点）"),
    "solution.row.kernel_time": ("kernel time", "kernel 时间"),
    "solution.row.fusion_saving": ("fusion saving", "融合节省倍数"),
    "solution.row.kv_ratio": ("KV cache ratio", "KV cache 倍数"),
    "solution.row.kv_mha_bytes": ("MHA KV cache", "MHA 的 KV cache"),
    "solution.row.kv_model_bytes": ("the model's KV cache", "本模型的 KV cache"),
    # --- quizapp calc --kernel ----------------------------------------------------------------------------
    "kernel.cli.title": ("Kernel: {kind} in {dtype}{gpu}", "Kernel：{kind}，{dtype}{gpu}"),
    "kernel.cli.on": (" on {gpu}", "，{gpu}"),
    "kernel.cli.per_head": ("(attention: per head and sequence, forward)", "（attention：每个 head、每条序列，前向）"),
    "kernel.cli.flops": ("FLOPs", "FLOPs"),
    "kernel.cli.bytes": ("bytes", "字节数"),
    "kernel.cli.intensity": ("intensity", "算术强度"),
    "kernel.cli.ridge": ("ridge", "ridge point"),
    "kernel.cli.time": ("time", "时间"),
    "kernel.cli.bound": ("bound", "瓶颈"),
    "kernel.cli.fusion": ("fusion saving", "融合节省"),
    "kernel.cli.kv_average": (" (average over {s} tokens: sliding window)", "（{s} token 上的平均值：sliding window）"),
    "kernel.cli.no_gpu": ("(give --gpu for the ridge point and the time)", "（加 --gpu 才能算 ridge point 和时间）"),
}
