"""Question files the daily-loop tests share (text)."""

MB_DRILL = """\
id: kv-one
title: KV cache of one token
topic: inference
lang: en
answer: |
  One token of llama-2-7b keeps {{kv-token}} of KV cache.
drills:
  - id: kv-token
    prompt: "{model}: KV cache of one token, in MB?"
    setup: {model: llama-2-7b, method: inference, batch: 1, seq: 1}
    ask: kv_cache
    unit: MB
"""
