"""A small bilingual question with key points (and broken variants of it) for the bilingual and
grading tests. Its numbers come from its drill: llama-2-7b bf16 KV cache at 4096 tokens, batch 8."""

KV_POINTS = """\
id: kv-points
title:
  en: How big is the KV cache of llama-2-7b, and what does it scale with?
  zh: llama-2-7b 的 KV cache 有多大，和什么成正比？
topic: inference
difficulty: 2
intent:
  en: Whether you can size the KV cache from the shape.
  zh: 能否从模型形状算出 KV cache。
answer:
  en: |
    The KV cache is 2·L·a_kv·d·s·b·p bytes: it grows linearly with the context length and the batch.
    For llama-2-7b at 4096 tokens and batch 8 in bf16 that is {{kv-batch8}}.
    It counts the KV heads, not the query heads.
  zh: |
    KV cache = 2·L·a_kv·d·s·b·p 字节，随上下文长度和 batch 线性增长。
    llama-2-7b 在 4096 token、batch 8、bf16 下是 {{kv-batch8}}。
    按 KV 头数算，不是 query 头数。
template:
  en: |
    2·L·a_kv·d·s·b·p; linear in context and batch; {{kv-batch8}} for llama-2-7b at 4K, batch 8.
  zh: |
    2·L·a_kv·d·s·b·p；随上下文和 batch 线性增长；llama-2-7b 在 4K、batch 8 时 {{kv-batch8}}。
key_points:
  - id: formula
    must: true
    text:
      en: The KV cache is 2·L·a_kv·d·s·b·p bytes
      zh: KV cache 是 2·L·a_kv·d·s·b·p 字节
    match:
      en: ['2 ?· ?l ?· ?a_kv']
      zh: ['2 ?· ?l ?· ?a_kv']
  - id: linear
    text:
      en: It grows linearly with the context length and the batch
      zh: 随上下文长度和 batch 线性增长
    match:
      en: ['linear(ly)?']
      zh: ['线性']
  - id: kv-heads
    text:
      en: It counts the KV heads, not the query heads
      zh: 按 KV 头数算，不是 query 头数
    match:
      en: ['kv heads?']
      zh: ['kv ?头']
  - id: size
    text:
      en: llama-2-7b at 4K tokens and batch 8 needs about 17 GB
      zh: llama-2-7b 在 4K、batch 8 时约 17 GB
    number: {drill: kv-batch8}
followups:
  - id: gqa
    q:
      en: What does GQA change?
      zh: GQA 改变了什么？
    a:
      en: |
        GQA shares each K and V head across a group of query heads, so the cache shrinks by a/a_kv;
        the attention FLOPs stay the same.
      zh: |
        GQA 让一组 query 头共享一个 K、V 头，cache 缩小 a/a_kv 倍；注意力的计算量不变。
    key_points:
      - id: shrinks
        must: true
        text: {en: The cache shrinks by a/a_kv, zh: cache 缩小 a/a_kv 倍}
        match: {en: ['a ?/ ?a_kv'], zh: ['a ?/ ?a_kv']}
      - id: same-flops
        text: {en: The attention FLOPs stay the same, zh: 注意力计算量不变}
        match: {en: ['flops stay the same', 'same flops'], zh: ['计算量不变']}
mistakes:
  - id: query-heads
    wrong: {en: The KV cache counts the query heads, zh: KV cache 按 query 头数算}
    right: {en: It counts the KV heads, zh: 按 KV 头数算}
    why: {en: Only K and V are cached, zh: 只缓存 K 和 V}
reading:
  - en: "Pope et al., 2022: Efficiently Scaling Transformer Inference"
    zh: "《Efficiently Scaling Transformer Inference》（Pope et al., 2022）"
drills:
  - id: kv-batch8
    prompt:
      en: "{model} serves {batch} sequences of {seq} tokens with a bf16 KV cache. How many GB is the KV cache?"
      zh: "{model} 服务 {batch} 条 {seq} token 的序列，bf16 KV cache，KV cache 共多少 GB？"
    setup: {model: llama-2-7b, method: inference, weights: bf16, kv_dtype: bf16, seq: 4096, batch: 8}
    ask: kv_cache
    unit: GB
"""
