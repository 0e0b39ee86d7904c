"""Words of the extra asks' worked derivations (quizapp.memory: speculative, numerics, hardware,
disagg, data, mup): the row labels (`solution.row.<step>`) and the notes (`calc.extra.*`), (en, zh).

Technical terms (draft model, token, SM, HBM, PCIe, NVLink, KV cache, MinHash, LSH, μP) stay English
in the Chinese lines, as engineers say them.
"""

from __future__ import annotations

TEXT: dict[str, tuple[str, str]] = {
    # --- row labels ---------------------------------------------------------------------------------
    "solution.row.spec_tokens_per_round": ("tokens per round", "每轮产出 token 数"),
    "solution.row.spec_round_cost": ("round cost (target steps)", "每轮耗时（以 target 步计）"),
    "solution.row.spec_speedup": ("speedup", "加速比"),
    "solution.row.format_bias": ("exponent bias", "指数偏置"),
    "solution.row.format_max": ("largest finite value", "最大有限值"),
    "solution.row.format_min_normal": ("smallest normal", "最小正规数"),
    "solution.row.format_min_subnormal": ("smallest subnormal", "最小次正规数"),
    "solution.row.format_epsilon": ("machine epsilon", "机器 epsilon"),
    "solution.row.fp8_scale": ("scale", "scale（缩放因子）"),
    "solution.row.sm_peak_flops": ("peak FLOP/s", "峰值 FLOP/s"),
    "solution.row.hbm_bandwidth": ("HBM bandwidth", "HBM 带宽"),
    "solution.row.bandwidth": ("memory bandwidth", "显存带宽"),
    "solution.row.bytes_in_flight": ("bytes in flight", "在途字节数"),
    "solution.row.link_bandwidth": ("link bandwidth", "链路带宽"),
    "solution.row.transfer_s": ("transfer time", "传输时间"),
    "solution.row.kv_bytes_per_token": ("KV bytes per token", "每 token 的 KV 字节数"),
    "solution.row.kv_transfer_bytes": ("KV cache to transfer", "要传输的 KV cache"),
    "solution.row.kv_transfer_s": ("KV transfer time", "KV 传输时间"),
    "solution.row.corpus_tokens": ("corpus tokens", "语料 token 数"),
    "solution.row.lsh_band_match": ("one band matches", "单个 band 命中"),
    "solution.row.lsh_match_probability": ("candidate-pair probability", "成为候选对的概率"),
    "solution.row.doc_tokens": ("document tokens", "文档 token 总数"),
    "solution.row.padding_waste": ("padding share", "padding 占比"),
    "solution.row.packed_sequences": ("packed sequences", "packing 后的序列数"),
    "solution.row.mup_width_ratio": ("width multiplier", "宽度倍数"),
    "solution.row.mup_lr": ("hidden-layer learning rate", "隐藏层学习率"),
    # --- speculative decoding -----------------------------------------------------------------------
    "calc.extra.spec_tokens": ("expected tokens per verification round: the accepted prefix of the γ drafted "
                               "tokens plus the one the target adds ({source})",
                               "每轮验证的期望产出：γ 个草稿 token 中被接受的前缀，加上 target 自己补的 1 个（{source}）"),
    "calc.extra.spec_cost": ("one round costs γ draft steps (c each, in target-step time) and one target pass",
                             "每轮耗时 = γ 次 draft 前向（每次 c 个 target 步）+ 1 次 target 前向"),
    "calc.extra.spec_speedup": ("expected walltime improvement over plain decoding ({source})",
                                "相对普通逐 token 解码的期望 walltime 加速（{source}）"),
    "calc.extra.spec_assumption": ("assumes each drafted token is accepted independently with probability α; "
                                   "the output distribution is the target's (rejection sampling)",
                                   "假设每个草稿 token 独立地以概率 α 被接受；输出分布与 target 完全一致（拒绝采样）"),
    # --- number formats -----------------------------------------------------------------------------
    "calc.extra.format_bits": ("{name}: E = {e} exponent bits, M = {m} mantissa bits ({source})",
                               "{name}：E = {e} 个指数位，M = {m} 个尾数位（{source}）"),
    "calc.extra.top_ieee": ("the top exponent is reserved for Inf and NaN (IEEE 754)",
                            "最高指数留给 Inf 和 NaN（IEEE 754）"),
    "calc.extra.top_fn": ("no Inf; only S.1111.111 is NaN, so the top exponent still holds values up to mantissa 110",
                          "没有 Inf，只有 S.1111.111 是 NaN，所以最高指数仍可表示数值，尾数最大到 110"),
    "calc.extra.top_finite": ("no Inf and no NaN (OCP MX): every code is a finite value",
                              "没有 Inf 也没有 NaN（OCP MX）：每个编码都是有限值"),
    "calc.extra.min_normal": ("the smallest exponent 1 − B with mantissa 1.0", "最小指数 1 − B、尾数 1.0"),
    "calc.extra.min_subnormal": ("exponent field 0: 0.m × 2^(1−B), the last mantissa bit alone",
                                 "指数域为 0：0.m × 2^(1−B)，只有最低位尾数为 1"),
    "calc.extra.epsilon": ("the gap between 1 and the next representable value", "1 与下一个可表示数之间的间隔"),
    "calc.extra.fp8_scale": ("per-tensor scaling: multiply by the scale before the cast so amax lands on the format's "
                             "largest value (Transformer Engine, margin 0); divide after",
                             "per-tensor scaling：cast 之前乘以 scale，让 amax 正好落在格式的最大值上（Transformer "
                             "Engine，margin 0），用完再除回去"),
    # --- GPU arithmetic -----------------------------------------------------------------------------
    "calc.extra.sm_peak": ("values not given in the setup come from the {preset} preset (NVIDIA whitepaper)",
                           "setup 中没给的数取自 {preset} 预设（NVIDIA 白皮书）"),
    "calc.extra.sm_peak_given": ("SMs, clock and per-SM rate as given", "SM 数、时钟和每 SM 吞吐按题目给定"),
    "calc.extra.sm_peak_source": ("a datasheet peak is this product at the boost clock; H100 SXM5: 132 SMs × 1.83 GHz "
                                  "× 4,096 dense bf16 FLOPs per clock per SM = 989.4 TFLOP/s (H100 whitepaper)",
                                  "datasheet 的峰值就是 boost 时钟下的这个乘积；H100 SXM5：132 个 SM × 1.83 GHz × "
                                  "每 SM 每时钟 4,096 次 dense bf16 FLOPs = 989.4 TFLOP/s（H100 白皮书）"),
    "calc.extra.hbm": ("bits per transfer × transfers per second per pin / 8 bits per byte (JEDEC HBM3: 1,024 bits "
                       "per stack)",
                       "总线位宽 × 每 pin 每秒传输位数 / 8（JEDEC HBM3：每个 stack 1,024 bit）"),
    "calc.extra.bandwidth_preset": ("the {gpu} preset's memory bandwidth", "{gpu} 预设的显存带宽"),
    "calc.extra.bandwidth_given": ("the bandwidth as given", "题目给定的带宽"),
    "calc.extra.little": ("Little's law: bytes requested and not yet returned needed to keep the memory at its "
                          "bandwidth",
                          "Little 定律：要把显存跑满带宽，必须同时在途（已请求未返回）的字节数"),
    "calc.extra.link_given": ("link_bandwidth as given (an achieved rate)", "题目给定的 link_bandwidth（实测速率）"),
    "calc.extra.link_nvlink": ("the {gpu} preset's NVLink, one direction", "{gpu} 预设的 NVLink 单向带宽"),
    "calc.extra.link_pcie": ("{link} x16, one direction: PCI-SIG line rate with 128b/130b encoding",
                             "{link} x16 单向：PCI-SIG 线速，128b/130b 编码"),
    "calc.extra.transfer": ("at the full rate: no protocol overhead, no overlap", "按满速计：不计协议开销，也不计重叠"),
    # --- disaggregated serving ----------------------------------------------------------------------
    "calc.extra.kv_per_token": ("K and V of every layer in {dtype}, whole model", "整个模型所有层的 K 和 V，{dtype}"),
    "calc.extra.kv_transfer": ("the prompt's whole KV cache moves from the prefill to the decode worker",
                               "prompt 的整份 KV cache 从 prefill worker 搬到 decode worker"),
    "calc.extra.kv_transfer_bound": ("a lower bound: layer-by-layer streaming can hide it behind the prefill",
                                     "这是下界：按层流式传输可以把它藏在 prefill 后面"),
    # --- data ---------------------------------------------------------------------------------------
    "calc.extra.corpus": ("bytes per token is the tokenizer's compression on this text (about 4 for English with a "
                          "large BPE vocabulary)",
                          "每 token 字节数是 tokenizer 在这类文本上的压缩率（大词表 BPE 的英文约 4）"),
    "calc.extra.lsh_band": ("all r MinHash rows of one band agree with probability s^r",
                            "一个 band 的 r 行 MinHash 全部相同的概率是 s^r"),
    "calc.extra.lsh": ("a candidate pair shares at least one of the b bands", "只要 b 个 band 中至少一个相同就成为候选对"),
    "calc.extra.lsh_source": ("MinHash: P(equal min-hash) = Jaccard similarity (Broder 1997); banding: Mining of "
                              "Massive Datasets, ch. 3.4",
                              "MinHash：两个 min-hash 相等的概率等于 Jaccard 相似度（Broder 1997）；分 band：Mining "
                              "of Massive Datasets 第 3.4 节"),
    "calc.extra.doc_tokens": ("the documents' tokens together", "所有文档的 token 之和"),
    "calc.extra.padding": ("each document padded to seq S on its own; padded slots over all slots",
                           "每篇文档单独 pad 到 seq S；padding 位置数 / 总位置数"),
    "calc.extra.packing": ("documents concatenated into sequences of S tokens (separators ignored)",
                           "把文档首尾拼接成长度 S 的序列（不计分隔符）"),
    # --- weight formats on request: 4-bit microscaling floats (breakdown notes) -----------------------
    "calc.note.fmt_mxfp4": ("MXFP4 block linears (OCP MX v1.0): FP4 E2M1 + one E8M0 scale per 32 values, 0.5 + 1/32 "
                            "bytes = 4.25 bits; embeddings, head, norms and routers 16-bit",
                            "block 内线性层为 MXFP4（OCP MX v1.0）：FP4 E2M1，每 32 个值一个 E8M0 scale，0.5 + 1/32 "
                            "字节 = 4.25 bits；embedding、输出头、norm 和 router 为 16-bit"),
    "calc.note.fmt_nvfp4": ("NVFP4 block linears: FP4 E2M1 + one FP8 E4M3 scale per 16 values, 0.5 + 1/16 bytes = "
                            "4.5 bits, and a 4-byte fp32 scale per matrix; embeddings, head, norms and routers 16-bit",
                            "block 内线性层为 NVFP4：FP4 E2M1，每 16 个值一个 FP8 E4M3 scale，0.5 + 1/16 字节 = "
                            "4.5 bits，外加每个矩阵一个 4 字节 fp32 scale；embedding、输出头、norm 和 router 为 16-bit"),
    # --- μP ------------------------------------------------------------------------------------------
    "calc.extra.mup_ratio": ("how many times wider the target is than the tuned proxy", "目标模型比调参用的小模型宽多少倍"),
    "calc.extra.mup": ("μP with Adam: hidden-layer learning rates scale as 1/fan_in",
                       "μP + Adam：隐藏层学习率按 1/fan_in 缩放"),
    "calc.extra.mup_source": ("Yang et al. 2022 (Tensor Programs V): tune at small width, transfer by the μP rules; "
                              "embedding and output layers follow their own rules",
                              "Yang et al. 2022（Tensor Programs V）：在小宽度上调参，按 μP 规则迁移；embedding 和"
                              "输出层有各自的规则"),
}
