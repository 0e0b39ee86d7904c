"""quizapp.memory: the GPU-memory calculator (pure arithmetic, standard library only).

Spec: memory-model.md. Contract: docs/architecture.md section 1. Everything public is re-exported here.
"""

from quizapp.memory.asks import ASKS, evaluate, solution_setup
from quizapp.memory.breakdown import TERM_NAMES, Breakdown, Term, breakdown, lora_params
from quizapp.memory.compute import flops_per_token, step_time
from quizapp.memory.fit import DEFAULT_RESERVE, Fit, fit
from quizapp.memory.gpus import GPU, GPUS
from quizapp.memory.mistakes import MISTAKES, Mistake, diagnose, mistake_candidates, mistake_values
from quizapp.memory.models import PRESETS, ModelSpec, bare_model, parse_count
from quizapp.memory.quantities import (
    UNITS,
    Quantity,
    QuantityError,
    Unit,
    format_bytes,
    format_quantity,
    parse_quantity,
)
from quizapp.memory.setup import OPTION_KEYS, Setup, SetupError, setup_from_options
from quizapp.memory.formats import WeightBytes, kv_bytes_per_token, weight_bytes
from quizapp.memory.notes import Note
from quizapp.memory.derivation import Derivation, Step
from quizapp.memory.extra_asks import EXTRA_ASKS
from quizapp.memory.extras import Extras
from quizapp.memory.comm import Communication, Traffic, communication
from quizapp.memory.serving import Roofline, Serving, serving_figures
from quizapp.memory.solve import (
    GpuPlan, max_batch, max_concurrency_at_context, max_context_at_concurrency, max_model, max_params, max_seq,
    min_gpus, min_tp,
)

__all__ = [
    "ASKS", "DEFAULT_RESERVE", "GPU", "GPUS", "MISTAKES", "OPTION_KEYS", "PRESETS", "TERM_NAMES", "UNITS",
    "Breakdown", "Fit", "Mistake", "ModelSpec", "Quantity", "QuantityError", "Setup", "SetupError", "Term", "Unit",
    "bare_model", "breakdown", "diagnose", "evaluate", "fit", "flops_per_token", "format_bytes", "format_quantity",
    "lora_params", "max_batch", "max_model", "max_params", "max_seq", "mistake_candidates", "mistake_values",
    "parse_count", "parse_quantity", "setup_from_options", "solution_setup", "step_time",
    # issue 11 (serving, communication, the new solves)
    "Communication", "GpuPlan", "Roofline", "Serving", "Traffic", "communication", "max_concurrency_at_context",
    "max_context_at_concurrency", "min_gpus", "min_tp", "serving_figures",
    # issue 11 (breakdown side: weight formats, note codes)
    "Note", "WeightBytes", "kv_bytes_per_token", "weight_bytes",
    # the third bank's extra asks (speculative decoding, formats, GPU arithmetic, data, μP)
    "Derivation", "EXTRA_ASKS", "Extras", "Step",
]
