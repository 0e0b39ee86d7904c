"""Words of the calculator's views (`quizapp calc` sections and the screen's modes): key -> (en, zh).

Kept apart from words/calc.py (the breakdown's term notes) so the two calculator lanes edit apart.
"""

TEXT: dict[str, tuple[str, str]] = {
    # `quizapp calc` section headings and notes
    "calc.cli.memory": ("memory", "显存"),
    "calc.cli.memory_per_gpu": ("memory (per GPU)", "显存（每张卡）"),
    "calc.cli.serving": ("serving", "推理服务"),
    "calc.cli.communication": ("communication", "通信"),
    "calc.cli.time": ("time", "时间"),
    "calc.cli.notes": ("notes", "说明"),
    "calc.serving.no_gpu": ("Give --gpu for the KV budget, concurrency, tokens/s and TTFT.",
                            "给出 --gpu 才能算 KV 预算、并发数、tokens/s 和 TTFT。"),
    "calc.serving.note_budget": (
        "KV budget = gpu_util x capacity − weights/t − reserve (vLLM's paged KV cache); the real budget also "
        "loses the activation peak vLLM profiles at start-up",
        "KV 预算 = gpu_util × 显存容量 − 权重/t − 预留（vLLM 的分页 KV cache）；实际预算还要减去 vLLM 启动时"
        "测得的激活峰值"),
    "calc.serving.note_roofline": (
        "decode step = max(bytes / bandwidth, FLOPs / peak): a lower bound (kernels reach 70-90 % of the "
        "bandwidth; --bandwidth-efficiency scales it); attention over a long KV cache stays memory-bound at any "
        "batch; MoE reads min(E, b·k) routed experts per block",
        "decode 单步 = max(字节数 / 带宽, FLOPs / 峰值)：这是下界（实际 kernel 只达到带宽的 70-90%，"
        "用 --bandwidth-efficiency 调整）；长 KV cache 上的 attention 在任何 batch 下都受带宽限制；"
        "MoE 每个 block 读取 min(E, b·k) 个路由专家"),
    "calc.serving.note_prefill": (
        "prefill FLOPs b·s·(2·N_active + 4·L·a·d·s), PaLM's count without causal halving; TTFT leaves out queueing",
        "prefill FLOPs 为 b·s·(2·N_active + 4·L·a·d·s)，PaLM 的算法，未按因果掩码减半；TTFT 不含排队时间"),
    "calc.comm.note_overlap": (
        "communication: ring volumes one GPU sends (nccl-tests' bus bytes), kinds added with no overlap; real "
        "systems overlap much of it with compute",
        "通信：每张卡发送的 ring 通信量（nccl-tests 的 bus 字节数），各类相加、不假设重叠；实际系统会把大部分"
        "通信与计算重叠"),
    # the calculator screen: modes, the new fields, the figures each mode shows
    "bind.next_mode": ("Mode", "切换模式"),
    "calc.mode.training": ("training", "训练"),
    "calc.mode.serving": ("serving", "推理服务"),
    "calc.mode.cluster": ("cluster", "集群"),
    "calc.section.inference.serving": ("Serving", "推理服务"),
    "calc.field.batch.serving": ("Concurrency", "并发序列数"),
    "calc.field.seq.serving": ("Context", "上下文长度"),
    "calc.field.head_dim": ("Head size", "头维度"),
    "calc.field.experts": ("Experts", "专家数"),
    "calc.field.top_k": ("Top-k", "Top-k"),
    "calc.field.expert_ffn": ("Expert FFN", "专家 FFN 宽度"),
    "calc.field.prompt": ("Prompt", "提示长度"),
    "calc.field.group": ("GRPO group", "GRPO 组大小"),
    "calc.field.rollout_batch": ("Rollout batch", "采样批大小"),
    "calc.field.critic_model": ("Critic", "Critic 模型"),
    "calc.field.reward_model": ("Reward model", "奖励模型"),
    "calc.choice.same": ("as the actor", "与 actor 相同"),
    "calc.field.tp": ("Tensor parallel", "张量并行"),
    "calc.field.sp": ("Sequence parallel", "序列并行"),
    "calc.field.pp": ("Pipeline stages", "流水线级数"),
    "calc.field.microbatches": ("Micro-batches", "微批个数"),
    "calc.field.interleave": ("Interleave", "交错块数"),
    "calc.field.ep": ("Expert parallel", "专家并行"),
    "calc.field.link_bandwidth": ("Link (B/s)", "链路带宽（B/s）"),
    "calc.field.weights": ("Weights", "权重格式"),
    "calc.field.group_size": ("Group size", "量化组大小"),
    "calc.field.kv_block": ("KV block", "KV 块大小"),
    "calc.field.gpu_util": ("GPU util", "显存利用率"),
    "calc.field.bandwidth_efficiency": ("Bandwidth eff.", "带宽效率"),
    "calc.field.compute": ("Compute", "算力精度"),
    "calc.field.tokens_per_s": ("Tokens/s", "实测 tokens/s"),
    "calc.field.train_tokens": ("Train tokens", "训练 token 数"),
    "calc.total.per_gpu": ("Per GPU {gb} ({gib})", "每卡 {gb}（{gib}）"),
    "calc.hint.shorter": ("0: batch 1 fits only up to sequence {seq}", "0：batch 1 时序列最长只能到 {seq}"),
    "calc.hint.states": ("0: even one token needs {need} of {usable} usable",
                         "0：哪怕 1 个 token 也需要 {need}，可用只有 {usable}"),
    "calc.hint.plan.zero-3": ("ZeRO-3", "ZeRO-3"),
    "calc.hint.plan.tp x pp": ("tp {tp} x pp {pp}", "tp {tp} × pp {pp}"),
    "calc.mfu": ("MFU / HFU", "MFU / HFU"),
    "calc.tokens_per_s": ("Tokens/s", "每秒 token 数"),
    "calc.kv_budget": ("KV budget", "KV 预算"),
    "calc.kv_tokens": ("KV cache holds", "KV 缓存容量"),
    "calc.max_concurrency": ("Max concurrency", "最大并发"),
    "calc.max_context": ("Longest context", "最长上下文"),
    "calc.min_tp": ("Smallest TP", "最小 TP"),
    "calc.decode": ("Decode step", "decode 单步"),
    "calc.decode_rate": ("Decode tokens/s", "decode tokens/s"),
    "calc.ttft": ("TTFT", "首 token 时间"),
    "calc.critical_batch": ("Critical batch", "临界 batch"),
    "calc.bound.memory": ("memory-bound", "带宽受限"),
    "calc.bound.compute": ("compute-bound", "算力受限"),
    "calc.per_seq": ("{total} · {each}/seq", "合计 {total} · 每序列 {each}"),
    "calc.kv_per_token": ("KV per token", "每 token KV"),
    "calc.tokens": ("{n} tokens", "{n} tokens"),
    "calc.at_context": ("{n} at {s} tokens", "{s} tokens 时 {n} 条"),
    "calc.at_batch": ("{n} tokens for {b}", "{b} 条时 {n} tokens"),
    "calc.comm.dp": ("Data parallel", "数据并行"),
    "calc.comm.tp": ("Tensor parallel", "张量并行"),
    "calc.comm.pp": ("Pipeline", "流水线"),
    "calc.comm.ep": ("Expert parallel", "专家并行"),
    "calc.comm.total": ("Communication", "通信合计"),
    "calc.comm.title": ("Sent per GPU per step (no overlap)", "每卡每步发送量（不计重叠）"),
    "calc.bubble": ("Pipeline bubble", "流水线气泡"),
    "calc.budget": ("Compute budget", "算力预算"),
    "calc.chinchilla": ("Chinchilla tokens", "Chinchilla token 数"),
    "calc.train_days": ("Training time", "训练时间"),
    "calc.min_gpus": ("Fewest GPUs", "最少显卡数"),
    "calc.days": ("{n} days", "{n} 天"),
}
