"""The calculator's term and breakdown notes (quizapp.memory returns them as codes): key -> (en, zh).

quizapp.memory says which note applies and with which numbers (`quizapp.memory.notes.Note`: a key and
its arguments); this table holds the words and `render` turns a code into a line in one language.
Technical terms (ZeRO, LoRA, KV cache, fp32) stay English in the Chinese lines. Every key starts with
"calc.note."; CALC-B's serving, communication and time words live in words/calc_views.py.
"""

from __future__ import annotations

from functools import lru_cache

from quizapp.words.plural import Plural

TEXT: dict[str, tuple[object, object]] = {
    # --- term notes: weights --------------------------------------------------------------------------
    "calc.note.weights": ("{dtype} weights: {w} bytes/param", "{dtype} 权重：每参数 {w} 字节"),
    "calc.note.weights_lora": ("frozen base in {dtype} (weights only) + LoRA adapters",
                               "冻结的基座为 {dtype}（只有权重）+ LoRA adapter"),
    "calc.note.weights_lora_format": ("frozen base ({fmt}) + LoRA adapters in {dtype}",
                                      "冻结的基座（{fmt}）+ {dtype} 的 LoRA adapter"),
    "calc.note.weights_qlora": ("NF4 block linears ({bits}); embeddings, head and norms 16-bit; LoRA adapters",
                                "block 内线性层为 NF4（{bits}）；embedding、输出头和 norm 为 16-bit；外加 LoRA adapter"),
    "calc.note.nf4_dq": ("4.127 bits, double quantization", "4.127 bits，双重量化"),
    "calc.note.nf4": ("4.5 bits, fp32 absmax per 64", "4.5 bits，每 64 个值一个 fp32 absmax"),
    "calc.note.fmt_16": ("16-bit weights: 2 bytes/param", "16-bit 权重：每参数 2 字节"),
    "calc.note.fmt_fp8": ("fp8 (e4m3) block linears: 1 byte + a 4-byte scale per matrix; embeddings, head, norms "
                          "and routers 16-bit",
                          "block 内线性层为 fp8（e4m3）：1 字节 + 每个矩阵一个 4 字节 scale；embedding、输出头、norm 和 "
                          "router 为 16-bit"),
    "calc.note.fmt_int8": ("int8 block linears (LLM.int8): 1 byte + a 4-byte scale per output row; embeddings, "
                           "head, norms and routers 16-bit",
                           "block 内线性层为 int8（LLM.int8）：1 字节 + 每个输出行一个 4 字节 scale；embedding、"
                           "输出头、norm 和 router 为 16-bit"),
    "calc.note.fmt_int4": ("{fmt} block linears, group {g}: 0.5 + 2/g (fp16 scale) + 0.5/g (4-bit zero) bytes, "
                           "{bits} bits; embeddings, head, norms and routers 16-bit",
                           "block 内线性层为 {fmt}，group {g}：0.5 + 2/g（fp16 scale）+ 0.5/g（4-bit zero）字节，"
                           "{bits} bits；embedding、输出头、norm 和 router 为 16-bit"),
    "calc.note.fmt_nf4": ("NF4 block linears ({bits}); embeddings, head, norms and routers 16-bit",
                          "block 内线性层为 NF4（{bits}）；embedding、输出头、norm 和 router 为 16-bit"),
    "calc.note.fmt_gguf": ("llama.cpp {type} file: every 2-D tensor in {type} ({bits} bits), {out_name} in {out}, "
                           "norms and routers fp32",
                           "llama.cpp {type} 文件：所有 2-D 张量为 {type}（{bits} bits），{out_name} 为 {out}，"
                           "norm 和 router 为 fp32"),
    "calc.note.out_weight": ("output.weight", "output.weight（输出头）"),
    "calc.note.out_tied": ("the tied token embedding", "共享的 token embedding"),
    "calc.note.fmt_bare": ("; a bare count: every parameter at this rate", "；只有参数量：所有参数都按这个宽度"),
    "calc.note.quant_rate": ("; scales and zeros at the per-weight rate (partial groups ignored)",
                             "；scale 和 zero 按每个权重的平均开销计（不计不满的 group）"),
    "calc.note.tp_weights": ("; / t = {t}: every matrix sharded (vLLM)", "；/ t = {t}：每个矩阵都切分（vLLM）"),
    # --- term notes: states ---------------------------------------------------------------------------
    "calc.note.zero_split": ("; ZeRO-{stage} over N = {n}", "；ZeRO-{stage}，在 N = {n} 张卡间切分"),
    "calc.note.zero_one": ("; ZeRO-{stage} with N = 1 partitions nothing", "；ZeRO-{stage} 在 N = 1 时什么也不切分"),
    "calc.note.zero_ep": ("; ZeRO-{stage}: non-expert states / N = {n}, expert states / (N/ep) = {ne}",
                          "；ZeRO-{stage}：非专家部分 / N = {n}，专家部分 / (N/ep) = {ne}"),
    "calc.note.model_parallel": ("; per GPU / (t·pp) = / {div}", "；每张卡 / (t·pp) = / {div}"),
    "calc.note.expert_parallel": ("; routed experts / ep = {ep} ({per} of E = {e} per GPU)",
                                  "；路由专家 / ep = {ep}（每张卡 {per} 个，共 E = {e} 个）"),
    "calc.note.grads": ("{bits}-bit gradients", "{bits}-bit 梯度"),
    "calc.note.grads_16": (" (Megatron, DeepSpeed and HF keep fp32 gradients: grads 32)",
                           "（Megatron、DeepSpeed 和 HF 保留 fp32 梯度：grads 32）"),
    "calc.note.master": ("fp32 master copy of the weights (mixed precision)", "权重的 fp32 主副本（混合精度）"),
    "calc.note.adam": ("Adam m and v in {dtype}: {k} bytes/param", "Adam 的 m 和 v 为 {dtype}：每参数 {k} 字节"),
    "calc.note.sgd": ("plain SGD keeps no optimizer state", "普通 SGD 没有优化器状态"),
    "calc.note.momentum": ("one momentum buffer in {dtype}: {k} bytes/param", "一个 {dtype} 动量缓冲：每参数 {k} 字节"),
    "calc.note.adafactor": ("Adafactor: factored second moment, no first moment (beta1 = None)",
                            "Adafactor：二阶矩分解存储，没有一阶矩（beta1 = None）"),
    "calc.note.adam8_bare": ("8-bit AdamW, block 256 with fp32 absmax; small tensors' 32-bit states not counted (no shape)",
                             "8-bit AdamW：块大小 256，每块一个 fp32 absmax；没有形状，小张量的 32-bit 状态未计入"),
    "calc.note.adam8": ("bitsandbytes 8-bit AdamW: block 256, fp32 absmax per block per state; tensors < 4096 stay 32-bit",
                        "bitsandbytes 8-bit AdamW：块大小 256，每个状态每块一个 fp32 absmax；少于 4096 个元素的张量保持 32-bit"),
    "calc.note.adjusted": ("adjusted", "已调整"),
    "calc.note.on_cpu": ("{note}, on CPU", "{note}，在 CPU 上"),
    "calc.note.grads_cpu": ("fp32 gradient buffer of the partition on CPU (the streamed 16-bit gradients converted, "
                            "ZeRO-Offload)",
                            "CPU 上该分片的 fp32 梯度缓冲（流式传来的 16-bit 梯度转换而成，ZeRO-Offload）"),
    "calc.note.weights_cpu": ("16-bit weights partition on CPU", "16-bit 权重分片在 CPU 上"),
    "calc.note.grads_offloaded": ("offloaded: gradients are streamed to CPU memory", "已 offload：梯度流式传到 CPU 内存"),
    "calc.note.offloaded": ("offloaded to CPU memory", "已 offload 到 CPU 内存"),
    "calc.note.weights_param_offload": ("parameter offload: the GPU holds roughly the largest block's weights",
                                        "参数 offload：GPU 上大约只留最大一个 block 的权重"),
    "calc.note.rlhf_trained": ("; {models} trained, each charged as full fine-tuning",
                               "；{models} 参与训练，各自按全量微调计"),
    "calc.note.actor_critic": ("actor and critic", "actor 和 critic"),
    "calc.note.policy": ("the policy", "policy 模型"),
    "calc.note.reference_weights": ("frozen reference model ({name}): 16-bit weights only",
                                    "冻结的 reference 模型（{name}）：只有 16-bit 权重"),
    "calc.note.reward_weights": ("frozen reward model ({name} with a value head): 16-bit weights only",
                                 "冻结的 reward 模型（{name}，带 value head）：只有 16-bit 权重"),
    # --- term notes: activations, KV, overhead -------------------------------------------------------
    "calc.note.activations": ("memory-model §5 term list, {attention} attention, recompute {recompute}, profile {profile}",
                              "memory-model §5 项列表，{attention} attention，重计算 {recompute}，实现配置 {profile}"),
    "calc.note.activations_lora": ("memory-model §4 LoRA lists (targets {targets}{dropout}), {attention} attention, "
                                   "recompute {recompute}, profile {profile}",
                                   "memory-model §4 的 LoRA 列表（targets {targets}{dropout}），{attention} attention，"
                                   "重计算 {recompute}，实现配置 {profile}"),
    "calc.note.lora_dropout": (", lora_dropout {p}", "，lora_dropout 概率 {p}"),
    "calc.note.profile_ideal": ("ideal (fused kernels, 1-byte masks)", "ideal（融合算子，1 字节 mask）"),
    "calc.note.profile_hf": ("hf (Hugging Face eager code)", "hf（Hugging Face eager 代码）"),
    "calc.note.per_gpu_tp": ("; per GPU at t = {t}{sp}", "；每张卡，t = {t}{sp}"),
    "calc.note.with_sp": (" with sequence parallelism", "，带序列并行"),
    "calc.note.per_gpu_pp": ("; first pipeline stage", "；流水线第一段"),
    "calc.note.overhead": ("CUDA context and allocator slack, as given", "CUDA context 与分配器余量（按给定值）"),
    "calc.note.kv_cache": (Plural("K and V for {n} sequence of {s} tokens in {dtype}{gqa}",
                                  "K and V for {n} sequences of {s} tokens in {dtype}{gqa}"),
                           "{n} 条序列、每条 {s} 个 token 的 K 和 V，{dtype}{gqa}"),
    "calc.note.kv_mla": (Plural("MLA: the compressed latent and the shared RoPE key (r_kv + d_r = {w}) for {n} "
                                "sequence of {s} tokens in {dtype}",
                                "MLA: the compressed latent and the shared RoPE key (r_kv + d_r = {w}) for {n} "
                                "sequences of {s} tokens in {dtype}"),
                         "MLA：压缩后的 latent 与共享的 RoPE key（r_kv + d_r = {w}），{n} 条序列、每条 {s} 个 token，{dtype}"),
    "calc.note.gqa": ("; GQA: a_kv = {akv} of a = {a} heads", "；GQA：a = {a} 个头中 a_kv = {akv}"),
    "calc.note.kv_tp": ("; / min(t, a_kv) = {div} (KV heads split across GPUs)", "；/ min(t, a_kv) = {div}（KV 头在各卡间切分）"),
    "calc.note.kv_mla_tp": ("; the latent is replicated on every GPU (/ 1)", "；latent 在每张卡上都有一份（/ 1）"),
    "calc.note.rollout_kv": (Plural("rollout generation: K and V for {n} sequence of {s} tokens in {dtype}{gqa}",
                                    "rollout generation: K and V for {n} sequences of {s} tokens in {dtype}{gqa}"),
                             "rollout 生成：{n} 条序列、每条 {s} 个 token 的 K 和 V，{dtype}{gqa}"),
    # --- breakdown notes -------------------------------------------------------------------------------
    "calc.note.offload": ("offload: the optimizer step runs on the CPU; the GPU keeps the 16-bit weights, the CPU "
                          "the fp32 master copy, the optimizer states and an fp32 gradient buffer ({k} bytes/param "
                          "with Adam); DeepSpeed's estimator budgets 24·Ψ with a 1.5x buffer factor",
                          "offload：优化器步骤在 CPU 上运行；GPU 上保留 16-bit 权重，CPU 上放 fp32 主权重、优化器状态"
                          "和 fp32 梯度缓冲（Adam 时每参数 {k} 字节）；DeepSpeed 的估算器按 1.5 倍缓冲系数预算 24·Ψ"),
    "calc.note.activation_terms": (
        "activations: the §5 term list (T = s·b = {s}·{b}, p = {p}), profile {impl}; not Korthikanti's GPT "
        "closed form s·b·h·(34 + 5as/h), which assumes GPT with dropout and eager attention",
        "激活：按 §5 项列表计算（T = s·b = {s}·{b}，p = {p}），实现配置 {impl}；不用 Korthikanti 的 GPT 闭式 "
        "s·b·h·(34 + 5as/h)，它假设 GPT、带 dropout、eager attention",
    ),
    "calc.note.hf_logits": ("hf: at the loss, the fp32 logits' backward briefly holds 8·T·V more (a transient, not counted)",
                            "hf：在 loss 处，fp32 logits 的反向会短暂多占 8·T·V（瞬时，未计入）"),
    "calc.note.no_activations": ("activations not counted: a bare parameter count has no shape (give a preset or "
                                 "layers/hidden/heads)",
                                 "未计激活：只有参数量就没有形状（请给出预设或 layers/hidden/heads）"),
    "calc.note.mla_no_activations": ("activations not counted: training activations of MLA blocks are out of scope "
                                     "(memory-model §11), so the total leaves them out; weights, states, KV cache "
                                     "and FLOPs are computed",
                                     "未计激活：MLA block 的训练激活不在模型范围内（memory-model §11），所以总数不含激活；"
                                     "权重、状态、KV cache 和 FLOPs 照常计算"),
    "calc.note.per_param": ("{total} bytes/param: {pieces} (before ZeRO/offload)", "每参数 {total} 字节：{pieces}（ZeRO/offload 之前）"),
    "calc.note.piece_weights": ("{n} weights", "{n} 权重"),
    "calc.note.piece_grads": ("{n} grads", "{n} 梯度"),
    "calc.note.piece_master": ("{n} master", "{n} 主权重"),
    "calc.note.piece_optimizer": ("{n} {name}", "{n} {name}"),
    "calc.note.plus": (" + ", " + "),
    "calc.note.lora": ("{method}: frozen base weights only; {n} trainable LoRA parameters (rank {r}, {targets}) charged "
                       "like full fine-tuning",
                       "{method}：基座冻结，只计权重；{n} 个可训练的 LoRA 参数（rank {r}，{targets}）按全量微调计"),
    "calc.note.lora_activations": ("LoRA activations charged as in full fine-tuning: an upper bound (the exact §4 "
                                   "lists are for llama-style blocks)",
                                   "LoRA 的激活按全量微调计：这是上界（§4 的精确列表只针对 llama 风格的 block）"),
    "calc.note.lora_exact": ("LoRA activations: frozen linears keep nothing for their weights; each adapter keeps its "
                             "input (once per distinct tensor) and x@A (§4, checked with autograd)",
                             "LoRA 激活：冻结的线性层不为自己的权重保存任何东西；每个 adapter 保存其输入（同一张量只算一次）"
                             "和 x@A（§4，已用 autograd 核对）"),
    "calc.note.qlora_untraced": ("QLoRA uses LoRA's activation lists: bitsandbytes' 4-bit matmul was not traced",
                                 "QLoRA 沿用 LoRA 的激活列表：bitsandbytes 的 4-bit matmul 未做 trace"),
    "calc.note.peak": ("peak = sum of terms, the standard estimate (ZeRO paper, Transformer Math 101); the real peak is "
                       "slightly lower (activations freed as gradients appear) or higher (optimizer temporaries, "
                       "fragmentation)",
                       "峰值 = 各项之和，标准估算（ZeRO 论文、Transformer Math 101）；实际峰值略低（梯度产生时激活已释放）"
                       "或略高（优化器临时张量、显存碎片）"),
    "calc.note.zero_n1": ("ZeRO-{stage} with N = 1: nothing to partition across, so it saves nothing",
                          "ZeRO-{stage} 在 N = 1 时：没有可以切分的对象，所以一点显存也不省"),
    "calc.note.inference": ("inference: weights + KV cache; transient activations of one forward pass are not counted",
                            "推理：权重 + KV cache；一次前向的瞬时激活未计入"),
    "calc.note.peak_inference": ("peak = sum of terms, the standard estimate; the real peak is higher by the forward "
                                 "pass's transient activations and allocator slack",
                                 "峰值 = 各项之和，标准估算；实际峰值还要加上前向的瞬时激活和分配器余量"),
    "calc.note.no_kv": ("KV cache not counted: a bare parameter count has no shape (give a preset or layers/heads)",
                        "未计 KV cache：只有参数量就没有形状（请给出预设或 layers/heads）"),
    "calc.note.cpu": ("cpu: {names} in host memory, per rank", "cpu：{names} 在主机内存中，每个 rank"),
    "calc.note.gguf_mixed": ("Q4_K_M and other mixed llama.cpp presets are model-dependent mixtures and are not modelled",
                             "Q4_K_M 等混合的 llama.cpp 预设与模型有关，不在模型范围内"),
    "calc.note.moe_counts": ("MoE: {total} parameters held and trained (every expert), {active} active per token "
                             "(k = {k} of E = {e} routed experts); FLOPs use the active count",
                             "MoE：持有并训练 {total} 个参数（所有专家），每个 token 激活 {active} 个"
                             "（E = {e} 个路由专家中选 k = {k} 个）；FLOPs 按激活参数计"),
    "calc.note.per_gpu": ("per GPU: N = {n} data-parallel x t = {t} tensor x pp = {pp} pipeline = {world} GPUs",
                          "每张卡：N = {n} 数据并行 × t = {t} 张量并行 × pp = {pp} 流水线 = {world} 张卡"),
    "calc.note.tp_activations": ("activations per GPU (Korthikanti et al. 2022): tensor parallelism divides what the "
                                 "sharded linears produce by t = {t}; {rest}; the logits / t (vocab-parallel "
                                 "cross-entropy)",
                                 "每张卡的激活（Korthikanti 等 2022）：张量并行把切分线性层的输出除以 t = {t}；{rest}；"
                                 "logits / t（词表并行的交叉熵）"),
    "calc.note.tp_rest_sp": ("sequence parallelism divides the rest too", "序列并行把其余部分也除以 t"),
    "calc.note.tp_rest_whole": ("norm inputs, linear inputs and dropout masks stay whole on every GPU",
                                "norm 输入、线性层输入和 dropout mask 在每张卡上完整保留"),
    "calc.note.pp_activations": ("pipeline (1F1B): the first stage holds {layers} of L = {L} layers with {m} "
                                 "micro-batches in flight; the logits and the loss live on the last stage",
                                 "流水线（1F1B）：第一段有 L = {L} 层中的 {layers} 层，同时在途 {m} 个 micro-batch；"
                                 "logits 和 loss 在最后一段"),
    "calc.note.ppo": ("PPO: actor and critic trained (model states each), reference and reward models frozen "
                      "(16-bit weights); activations of the actor and the critic for one micro-batch each (the "
                      "critic's loss keeps 4·T, not 4·T·V)",
                      "PPO：actor 和 critic 参与训练（各有完整模型状态），reference 和 reward 模型冻结（16-bit 权重）；"
                      "激活为 actor 和 critic 各一个 micro-batch（critic 的 loss 只保存 4·T，而非 4·T·V）"),
    "calc.note.critic_shape": ("critic: {name} with its LM head replaced by a value head of h + 1 parameters "
                               "({params} parameters)",
                               "critic：{name}，输出头换成 h + 1 个参数的 value head（共 {params} 个参数）"),
    "calc.note.dpo": ("DPO: the policy trained, a frozen reference; chosen and rejected pass together, so activations "
                      "are those of 2·b = {n} sequences",
                      "DPO：训练 policy，reference 冻结；chosen 和 rejected 一起前向，激活按 2·b = {n} 条序列计"),
    "calc.note.grpo": ("GRPO: the policy trained, a frozen reference, no critic; G = {g} responses per prompt, so "
                       "activations are those of G·b = {n} sequences",
                       "GRPO：训练 policy，reference 冻结，没有 critic；每个 prompt 生成 G = {g} 个回答，激活按 "
                       "G·b = {n} 条序列计"),
    "calc.note.hfu_mfu": ("the utilization setting is the HFU ({hfu}); with {recompute} recomputation the MFU is "
                          "{mfu} (model FLOPs / (step time x peak))",
                          "利用率设置是 HFU（{hfu}）；{recompute} 重计算下 MFU 为 {mfu}（模型 FLOPs /（单步时间 × 峰值））"),
    "calc.note.step_time": ("step time (§7, §14): one step runs a micro-batch count of m = {m} per data-parallel replica; each "
                            "GPU executes 1/(t·pp) = 1/{split} of the FLOPs at the HFU setting; the pipeline bubble "
                            "{bubble} of that ideal time is included; communication is not (reported separately, "
                            "no overlap assumed)",
                            "单步时间（§7、§14）：一步是每个数据并行副本 m = {m} 个 micro-batch；每张卡执行 "
                            "1/(t·pp) = 1/{split} 的 FLOPs，按 HFU 设置计；包含流水线气泡（理想时间的 {bubble}）；"
                            "不含通信（单独报告，不计重叠）"),
}


@lru_cache(maxsize=4096)
def _render(code: object, lang: str) -> str:
    if isinstance(code, str):
        return code
    key = code.key  # type: ignore[attr-defined]
    args = dict(code.args)  # type: ignore[attr-defined]
    if key == "":
        return "".join(_render(part, lang) for part in args.get("parts", ()))
    from quizapp.words import TEXT as ALL  # the merged table (calc_views' keys too)

    pair = ALL.get(key) or TEXT.get(key)
    if pair is None:
        return key
    template = pair[1] if lang == "zh" else pair[0]
    if isinstance(template, Plural):
        template = template.pick(args.get("n"))
    filled = {k: (v if isinstance(v, (str, int, float)) else _render(v, lang)) for k, v in args.items()}
    return template.format(**filled) if filled else template  # type: ignore[union-attr]


def render(code: object, lang: str = "en") -> str:
    """A calculator note code (quizapp.memory.notes.Note, or a plain string) as one line in `lang`."""
    return _render(code, "zh" if lang == "zh" else "en")
